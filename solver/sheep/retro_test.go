package sheep

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/puzzled/puzzled/solver"
)

// TestRetroAgainstOracle: on random small levels the retrograde search,
// without bounds, is exact: it proves every level the brute-force oracle
// finds unsolvable (some W_j is empty) and no other, and its proofs
// verify. With tight bounds it proves a subset of them and never more.
func TestRetroAgainstOracle(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(15, 2026))
	unbounded := retroPlan{nodes: 1 << 40, maxLayer: 1 << 40}
	tight := retroPlan{nodes: 40, maxLayer: 12}
	proved, provedTight, unsolvable := 0, 0, 0
	for k := range 3000 {
		l := mustParse(t, smallLevel(rng))
		if precheckFail(l) != "" {
			continue
		}
		solvable := newOracle(l).solve() != nil
		if !solvable {
			unsolvable++
		}
		never := func() bool { return false }
		out, left := newRetroSearch(l).run(unbounded, never)
		if (out == retroProven) == solvable {
			t.Fatalf("level %d %s: retrograde %d (left %d), oracle solvable %v", k, l.Canonical(), out, left, solvable)
		}
		if out == retroProven {
			proved++
			res := solver.Result{Verdict: solver.Unsolvable, Proof: retroProof(left), Plan: []byte("[]"),
				Details: map[string]any{"tiles": len(l.tiles), "cleared": 0}}
			if err := Verify(l, res); err != nil {
				t.Fatalf("level %d: own retrograde proof rejected: %v", k, err)
			}
		}
		if out, _ := newRetroSearch(l).run(tight, never); out == retroProven {
			provedTight++
			if solvable {
				t.Fatalf("level %d: a bounded retrograde search proves a solvable level unsolvable", k)
			}
		}
	}
	t.Logf("%d unsolvable levels: %d proven without bounds, %d within 40 states", unsolvable, proved, provedTight)
	if unsolvable < 100 || provedTight == 0 || provedTight == proved {
		t.Fatalf("%d unsolvable, %d proven, %d within bounds: the test does not test", unsolvable, proved, provedTight)
	}
}

// TestVerifyRejectsFalseRetro: a retrograde proof naming a layer that is
// not empty, or malformed, is rejected.
func TestVerifyRejectsFalseRetro(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(16, 2026))
	for k := 0; ; k++ {
		l := mustParse(t, smallLevel(rng))
		if precheckFail(l) != "" {
			continue
		}
		out, left := newRetroSearch(l).run(retroPlan{nodes: 1 << 30, maxLayer: 1 << 30}, func() bool { return false })
		if out != retroProven {
			continue
		}
		for _, proof := range []string{retroProof(left + 1), retroProof(left - 1), "retrograde:left=x", "retrograde:left=0", "retrograde:"} {
			res := solver.Result{Verdict: solver.Unsolvable, Proof: proof, Plan: []byte("[]"),
				Details: map[string]any{"tiles": len(l.tiles), "cleared": 0}}
			if err := Verify(l, res); err == nil {
				t.Fatalf("level %d: proof %q accepted, the empty layer is %d", k, proof, left)
			}
		}
		return
	}
}

// TestRetroInSchedule: with the retrograde searches in the schedule (in
// the beam phase after the first beam, and the larger one after the beams
// where no line came near a win), small levels get the oracle's verdicts,
// every plan replays (solveVerifiedWith), and each search's proofs fire.
// Searches interrupted at random nodes, in the retrograde searches among
// others, resume to the uninterrupted result.
func TestRetroInSchedule(t *testing.T) {
	t.Parallel()
	beams := []beamRun{{width: 2, dig: 100}, {width: 8, dig: 100}}
	early := retroPlan{nodes: 60, maxLayer: 16, afterBeams: 1}
	far := retroPlan{nodes: 400, maxLayer: 64}
	for _, tc := range []struct {
		name      string
		retro     retroPlan
		retroFar  retroPlan
		minProofs int
	}{
		{"in the beam phase", early, retroPlan{}, 20},
		{"after the beams", retroPlan{}, far, 20},
		{"both", early, far, 35},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(17, 2026))
			sched := schedule{first: 40, restart: 20, restarts: 2, restartNear: 80, beams: beams,
				retro: tc.retro, retroFar: tc.retroFar}
			fired, resumed := 0, 0
			for k := range 1500 {
				l := mustParse(t, smallLevel(rng))
				res := solveVerifiedWith(t, l, solver.Options{}, sched)
				solvable := newOracle(l).solve() != nil
				if (res.Verdict == solver.Solved) != solvable || res.Verdict == solver.Unknown {
					t.Fatalf("level %d: %s (%s), oracle solvable %v", k, res.Verdict, res.Proof, solvable)
				}
				if strings.HasPrefix(res.Proof, "retrograde:") {
					fired++
					if fired%4 == 0 {
						resumeAtRandom(t, k, l, sched, res, rng, 3)
						resumed += 3
					}
				}
			}
			t.Logf("retrograde proofs: %d; %d of them resumed after an interruption", fired, resumed)
			if fired < tc.minProofs {
				t.Fatalf("the retrograde searches proved only %d levels", fired)
			}
		})
	}
}

// TestRetroCandidates: on states reached by random play of random small
// levels and of capture-264, the tiles the retrograde search may put back
// (candidates, then onTop) are exactly those of a test of every tile not
// on the board.
func TestRetroCandidates(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(17, 2026))
	levels := []*Level{benchLayout(t, "capture-264")}
	for range 300 {
		levels = append(levels, mustParse(t, smallLevel(rng)))
	}
	states, accepted := 0, 0
	for k, l := range levels {
		r := newRetroSearch(l)
		b := newBoard(l)
		for b.left > 0 {
			// The tiles left as a state of the retrograde search.
			state := make([]uint64, r.w)
			for i := range l.tiles {
				if b.removed[i/64]&(1<<(i%64)) == 0 {
					state[i/64] |= 1 << (i % 64)
				}
			}
			r.candidates(state)
			for i := range l.tiles {
				inState := state[i/64]&(1<<(i%64)) != 0
				want := !inState && r.onTop(state, int32(i))
				got := r.cand[i/64]&(1<<(i%64)) != 0 && r.onTop(state, int32(i))
				if got != want {
					t.Fatalf("level %d, %d tiles left: tile %d put back %v, want %v", k, b.left, i, got, want)
				}
				if want {
					accepted++
				}
			}
			states++
			clk := b.clk
			b.apply(clk[rng.IntN(len(clk))])
		}
	}
	t.Logf("%d states, %d tiles that could be put back", states, accepted)
}
