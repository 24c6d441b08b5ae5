package sheep

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/puzzled/puzzled/solver"
)

// TestPortfolio checks how a portfolio combines its two searches, with
// searches that say what they are told when they are told: whose result
// wins, the nodes of both, own's time, the error, and that own's last
// checkpoint is dropped once the helper decided.
func TestPortfolio(t *testing.T) {
	t.Parallel()
	// Each call returns a Details map of its own, as a search does.
	solved := func() solver.Result {
		return solver.Result{Verdict: solver.Solved, Details: map[string]any{}, Stats: solver.Stats{Nodes: 7, Depth: 3, ElapsedMS: 1}}
	}
	unknown := func() solver.Result {
		return solver.Result{Verdict: solver.Unknown, Details: map[string]any{}, Stats: solver.Stats{Nodes: 5, ElapsedMS: 40}}
	}
	stopped := func(ctx context.Context) (solver.Result, error) {
		<-ctx.Done()
		return unknown(), fmt.Errorf("search interrupted: %w", ctx.Err())
	}
	for _, c := range []struct {
		name string
		// own gets started, closed once the helper runs.
		own    func(ctx context.Context, opts solver.Options, started <-chan struct{}) (solver.Result, error)
		helper func(ctx context.Context) (solver.Result, error)
		after  time.Duration
		cancel bool // the caller's ctx ends once the helper runs
		want   solver.Verdict
		whose  string // "": no portfolio detail (the helper never started)
		nodes  int64
		err    bool
		ckpts  int // own's checkpoints that reach the caller
	}{
		{name: "the helper decides first", after: 0, want: solver.Solved, whose: "helper", nodes: 12, ckpts: 0,
			own: func(ctx context.Context, opts solver.Options, _ <-chan struct{}) (solver.Result, error) {
				res, err := stopped(ctx)
				opts.Checkpoint([]byte("last")) // as solveWith does when stopped
				return res, err
			},
			helper: func(context.Context) (solver.Result, error) { return solved(), nil }},
		{name: "own decides first", after: 0, want: solver.Solved, whose: "own", nodes: 12, ckpts: 1,
			own: func(ctx context.Context, opts solver.Options, started <-chan struct{}) (solver.Result, error) {
				<-started
				opts.Checkpoint([]byte("one"))
				return solved(), nil
			},
			helper: stopped},
		{name: "neither decides within own's budget", after: 0, want: solver.Unknown, whose: "own", nodes: 10,
			own: func(ctx context.Context, opts solver.Options, started <-chan struct{}) (solver.Result, error) {
				<-started
				return unknown(), nil
			},
			helper: stopped},
		{name: "the caller's ctx ends", after: 0, cancel: true, want: solver.Unknown, whose: "own", nodes: 10, err: true,
			own: func(ctx context.Context, opts solver.Options, _ <-chan struct{}) (solver.Result, error) {
				return stopped(ctx)
			},
			helper: stopped},
		{name: "own decides before the helper starts", after: time.Hour, want: solver.Solved, nodes: 7,
			own: func(context.Context, solver.Options, <-chan struct{}) (solver.Result, error) {
				return solved(), nil
			},
			helper: func(context.Context) (solver.Result, error) { panic("the helper ran") }},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			started := make(chan struct{})
			ckpts := 0
			opts := solver.Options{Checkpoint: func([]byte) { ckpts++ }}
			res, err := portfolio(ctx, opts,
				func(ctx context.Context, opts solver.Options) (solver.Result, error) {
					return c.own(ctx, opts, started)
				},
				func(ctx context.Context) (solver.Result, error) {
					close(started)
					if c.cancel {
						cancel()
					}
					return c.helper(ctx)
				}, c.after)
			whose, _ := res.Details["portfolio"].(string)
			if res.Verdict != c.want || whose != c.whose || res.Stats.Nodes != c.nodes || (err != nil) != c.err || ckpts != c.ckpts {
				t.Fatalf("got %s by %q, %d nodes, error %v, %d checkpoints; want %s by %q, %d nodes, error %v, %d checkpoints",
					res.Verdict, whose, res.Stats.Nodes, err, ckpts, c.want, c.whose, c.nodes, c.err, c.ckpts)
			}
			if c.whose == "helper" && (res.Stats.ElapsedMS != 40 || res.Stats.Depth != 3) {
				t.Fatalf("stats %+v: want own's time (40 ms) and the helper's depth (3)", res.Stats)
			}
			if c.err && !errors.Is(err, context.Canceled) {
				t.Fatalf("error %v: want the caller's context.Canceled", err)
			}
		})
	}
}

// TestPortfolioAgainstOracle: the helper's schedule alone is sound on its
// own (its exact pass runs in another move order), and so is a portfolio
// of it with the own schedule, the two searching at once: the oracle's
// verdict on 1,500 random small levels, every plan replayed.
func TestPortfolioAgainstOracle(t *testing.T) {
	t.Parallel()
	// first: 1 leaves the levels to the beams and the exact pass; without
	// beams the exact pass in the helper's order decides them all.
	helpers := []schedule{{first: 1, beams: helperBeams, exactOrder: helperOrder}, {first: 1, exactOrder: helperOrder}}
	rng := rand.New(rand.NewPCG(34, 1001))
	whose := map[string]int{}
	for k := range 1500 {
		l := mustParse(t, smallLevel(rng))
		want := solver.Unsolvable
		if newOracle(l).solve() != nil {
			want = solver.Solved
		}
		for i, h := range helpers {
			if got := solveVerifiedWith(t, l, solver.Options{}, h); got.Verdict != want {
				t.Fatalf("helper schedule %d, level %d %s: %s (%s), oracle %s", i, k, l.Canonical(), got.Verdict, got.Proof, want)
			}
		}
		// Own starts once the helper runs, so that the two search at once
		// (a small level is decided in microseconds, before a timer fires).
		started := make(chan struct{})
		res, err := portfolio(t.Context(), solver.Options{},
			func(ctx context.Context, opts solver.Options) (solver.Result, error) {
				<-started
				return solveWith(ctx, l, opts, tinySchedule)
			},
			func(ctx context.Context) (solver.Result, error) {
				close(started)
				return solveWith(ctx, l, solver.Options{}, helpers[k%2])
			}, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := Verify(l, res); err != nil {
			t.Fatalf("level %d %s: %v", k, l.Canonical(), err)
		}
		if res.Verdict != want {
			t.Fatalf("portfolio, level %d %s: %s (%s), oracle %s", k, l.Canonical(), res.Verdict, res.Proof, want)
		}
		w, _ := res.Details["portfolio"].(string)
		whose[w]++
	}
	// Which search wins depends on the scheduler; on two cores or more
	// each must win some (450–1,050 of 1,500 each on 2 cores).
	t.Logf("won by: %v", whose)
	if runtime.GOMAXPROCS(0) >= 2 && (whose["own"] < 50 || whose["helper"] < 50) {
		t.Fatalf("won by %v: the portfolio did not run both searches", whose)
	}
}

// TestPortfolioDecidesWhatOwnDoesNot: deal 279 of the game's layout
// capture-264, which the own search leaves unknown after 60 s (and
// sheep/13's portfolio after 10 s), is won by the helper's beams with
// the deep endgame table of sheep/14 (helperRetroDeep; sheep/14 its first
// beam again, sheep/15 helperDeepBeams): with two threads the
// portfolio decides it, and the helper's line is the one returned. Until
// sheep/14 this was deal 11, which the own search wins too after about
// 6M nodes: the helper's larger table made that a race.
func TestPortfolioDecidesWhatOwnDoesNot(t *testing.T) {
	t.Parallel()
	d, err := DealNumber(benchLayout(t, "capture-264"), 1, 279, 0)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Solve(t.Context(), d, solver.Options{Threads: 2, Budget: solver.Budget{MaxMS: 120_000}})
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(d, res); err != nil {
		t.Fatal(err)
	}
	if res.Verdict != solver.Solved || res.Details["portfolio"] != "helper" {
		t.Fatalf("got %s (details %v, %d nodes); want solved by the helper", res.Verdict, res.Details, res.Stats.Nodes)
	}
	t.Logf("solved by the helper: %d nodes of both searches, %d ms", res.Stats.Nodes, res.Stats.ElapsedMS)
}
