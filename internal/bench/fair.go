package bench

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"time"

	"github.com/puzzled/puzzled/api/client"
	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/store"
)

// RunFair is `puzzled bench-fair`: fair share of the workers between two
// projects (issue 31). Each round, on one worker process: project A
// submits --big slow levels, runs alone for half of --warmup (to fill
// every slot) and one --warmup more (over which its rate alone is
// measured), and B submits --small slow levels; once B's batch is done, A
// runs alone for one --warmup more (its rate alone again), then A's batch
// is canceled and, once A's last searches have had time to end, B's
// --small levels run alone.
// Each is timed from submission to the batch's end. It prints B's time
// beside A against B's time alone just before (the previous round's, or a
// first run alone) and just after, averaged: the machines we measure on
// change speed by a third within minutes, and the average of the two cancels
// a steady drift. And A's throughput while B ran against the average of
// A's alone before and after, for the same reason. The
// levels are generated columns levels with a --ms time budget each (most
// use it all), new ones every batch, so no answer is cached.
func RunFair(ctx context.Context, args []string, srv Servers) error {
	cfg := Config{CheckpointEvery: 5 * time.Second, StaleAfter: time.Minute}
	fs := flag.NewFlagSet("bench-fair", flag.ContinueOnError)
	databaseFlags(fs, &cfg, "a database the bench may fill")
	fs.StringVar(&cfg.RedisAddr, "redis-addr", "", "Redis address whose DB --redis-db the bench may flush (default: embedded)")
	fs.IntVar(&cfg.RedisDB, "redis-db", 0, "Redis database index")
	fs.IntVar(&cfg.Concurrency, "concurrency", 4*runtime.NumCPU(), "worker concurrency")
	big := fs.Int("big", 20_000, "levels of project A's batch")
	small := fs.Int("small", 200, "levels of project B's batch")
	budget := fs.Int64("ms", 200, "time budget of each level, ms")
	warmup := fs.Duration("warmup", 10*time.Second, "how long A runs alone before B submits (A's rate alone is measured over it)")
	rounds := fs.Int("rounds", 3, "rounds (B alone, then B beside A)")
	weightB := fs.Int("weight-b", 1, "project B's bulk_weight (A's is 1)")
	srv.BulkFlags(fs, &cfg.BulkPriority, &cfg.BulkYield)
	fs.StringVar(&cfg.LogLevel, "log-level", "warn", "log level")
	if err := fs.Parse(args); err != nil {
		return err
	}
	logger, st, qc, stop, err := openBench(ctx, srv, &cfg)
	if err != nil {
		return err
	}
	defer stop()
	for name, weight := range map[string]int{"fair-a": 1, "fair-b": *weightB} {
		p, err := st.CreateProject(ctx, name)
		if errors.Is(err, store.ErrExists) {
			p, err = st.ProjectByName(ctx, name)
		}
		if err != nil {
			return err
		}
		if err := st.SetShare(ctx, p.ID, store.Share{Weight: weight}); err != nil {
			return err
		}
	}
	c, stopAPI, err := serveAPI(ctx, srv, cfg, st, qc, logger, 10*time.Minute)
	if err != nil {
		return err
	}
	defer stopAPI()
	wst, err := store.Open(ctx, cfg.DatabaseURL, srv.WorkerStoreOpts(cfg))
	if err != nil {
		return err
	}
	defer wst.Close()

	fmt.Printf("puzzled bench-fair: %d CPUs, worker concurrency %d; A %d levels, B %d levels (weight %d against 1), %d ms each\n",
		runtime.NumCPU(), cfg.Concurrency, *big, *small, *weightB, *budget)
	f := fairBench{c: c, budget: *budget, rng: rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 31))}
	var ratios, keeps []float64
	var before time.Duration
	for round := range *rounds {
		r, err := withWorker(ctx, srv, cfg, wst, qc, logger, func() (fairRound, error) {
			if round == 0 {
				var err error
				if before, err = f.timeBatch(ctx, "fair-b", *small); err != nil {
					return fairRound{}, err
				}
			}
			return f.round(ctx, *big, *small, *warmup)
		})
		if err != nil {
			return err
		}
		alone := (before + r.bAlone) / 2
		ratios = append(ratios, r.bShared.Seconds()/alone.Seconds())
		keeps = append(keeps, r.aKeeps())
		bRate := float64(*small) / r.bShared.Seconds()
		fmt.Printf("round %d: B alone %.1f s before and %.1f s after, B beside A %.1f s = %.2f× alone (%.2f× before alone); A %.1f levels/s alone before and %.1f after, %.1f while B ran = %.0f%% (%.0f%% of before); B's share while both ran %.0f%%\n",
			round+1, before.Seconds(), r.bAlone.Seconds(), r.bShared.Seconds(), ratios[round], r.bShared.Seconds()/before.Seconds(),
			r.aAlone, r.aAfter, r.aDuring, 100*keeps[round], 100*r.aDuring/r.aAlone, 100*bRate/(bRate+r.aDuring))
		before = r.bAlone
	}
	fmt.Printf("median: B beside A = %.2f× B alone (target ≤ 2); A keeps %.0f%% of its throughput (target ≥ 40%%)\n",
		median(ratios), 100*median(keeps))
	return nil
}

// fairBench submits the batches of RunFair.
type fairBench struct {
	c      *client.Client
	budget int64
	rng    *rand.Rand
}

// fairRound is what one round measured.
type fairRound struct {
	bAlone, bShared time.Duration
	// A's rate alone over --warmup before B submits and over --warmup
	// after B's batch ended, and while B ran; levels a second.
	aAlone, aAfter, aDuring float64
}

// aKeeps is A's rate while B ran against the average of its rates alone
// before and after: the same bracket as B's, for the same drift.
func (r fairRound) aKeeps() float64 { return r.aDuring / ((r.aAlone + r.aAfter) / 2) }

func (f *fairBench) round(ctx context.Context, big, small int, warmup time.Duration) (fairRound, error) {
	var r fairRound
	a, err := f.submit(ctx, "fair-a", big)
	if err != nil {
		return r, err
	}
	canceled := false
	defer func() {
		if !canceled {
			_, _ = f.c.CancelBatch(context.WithoutCancel(ctx), a)
		}
	}()
	// A ramps up (its bundles go solo and every slot fills) before its
	// rate alone is measured.
	time.Sleep(warmup / 2)
	done0, err := f.done(ctx, a)
	if err != nil {
		return r, err
	}
	t0 := time.Now()
	time.Sleep(warmup)
	done1, err := f.done(ctx, a)
	if err != nil {
		return r, err
	}
	t1 := time.Now()
	r.aAlone = float64(done1-done0) / t1.Sub(t0).Seconds()
	if r.bShared, err = f.timeBatch(ctx, "fair-b", small); err != nil {
		return r, err
	}
	done2, err := f.done(ctx, a)
	if err != nil {
		return r, err
	}
	t2 := time.Now()
	r.aDuring = float64(done2-done1) / t2.Sub(t1).Seconds()
	time.Sleep(warmup)
	done3, err := f.done(ctx, a)
	if err != nil {
		return r, err
	}
	r.aAfter = float64(done3-done2) / time.Since(t2).Seconds()
	if done3 >= big {
		return r, fmt.Errorf("bench-fair: A's batch ended before the round's end (%+v): make --big larger", r)
	}
	canceled = true
	if _, err := f.c.CancelBatch(ctx, a); err != nil {
		return r, err
	}
	// B alone has the workers to itself: A's searches end with their
	// budget, or at the worker's next look for a cancel (every 500 ms).
	time.Sleep(2*time.Duration(f.budget)*time.Millisecond + 500*time.Millisecond)
	if r.bAlone, err = f.timeBatch(ctx, "fair-b", small); err != nil {
		return r, err
	}
	return r, nil
}

// timeBatch submits n levels to project and times until the batch ends.
func (f *fairBench) timeBatch(ctx context.Context, project string, n int) (time.Duration, error) {
	start := time.Now()
	id, err := f.submit(ctx, project, n)
	if err != nil {
		return 0, err
	}
	for {
		b, err := f.c.GetBatch(ctx, id)
		if err != nil {
			return 0, err
		}
		if b.Done == 1 {
			if b.States[string(jobtype.Done)] != n {
				return 0, fmt.Errorf("bench-fair: batch %d ended with states %v", id, b.States)
			}
			return time.Since(start), nil
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// submit sends n new slow levels to project, bulk.
func (f *fairBench) submit(ctx context.Context, project string, n int) (int64, error) {
	levels, err := SlowLevels(f.rng, n)
	if err != nil {
		return 0, err
	}
	id, err := f.c.CreateBatch(ctx, levels, jobtype.Options{Priority: jobtype.Bulk, Project: project,
		Budget: solver.Budget{MaxMS: f.budget}})
	if err != nil {
		return 0, fmt.Errorf("bench-fair: submit %d to %s: %w", n, project, err)
	}
	return id, nil
}

func (f *fairBench) done(ctx context.Context, id int64) (int, error) {
	b, err := f.c.GetBatch(ctx, id)
	if err != nil {
		return 0, err
	}
	return b.States[string(jobtype.Done)], nil
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
