package sheep

import (
	"fmt"
	"math/rand/v2"
	"slices"
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

// TestRetroTrays: the trays kept beside the states (two bits a type) and
// the trays counted from each state's tiles (levels of more than 32
// types) give the same layers, state for state in the same order, on 300
// random small levels and on a capture-264 deal (its first 20,000
// states), and the same outcome.
func TestRetroTrays(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(17, 15))
	deal, err := DealNumber(benchLayout(t, "capture-264"), 1, 562, 0)
	if err != nil {
		t.Fatal(err)
	}
	levels := []*Level{deal}
	for range 300 {
		levels = append(levels, mustParse(t, smallLevel(rng)))
	}
	plan := retroPlan{nodes: 20000, maxLayer: 1 << 14, keep: true}
	compared := 0
	for k, l := range levels {
		kept, counted := newRetroSearch(l), newRetroSearch(l)
		counted.countTrays = true
		out1, left1 := kept.run(plan, func() bool { return false })
		out2, left2 := counted.run(plan, func() bool { return false })
		if out1 != out2 || left1 != left2 || len(kept.layers) != len(counted.layers) {
			t.Fatalf("level %d: kept trays %v %d, %d layers; counted %v %d, %d layers", k, out1, left1, len(kept.layers), out2, left2, len(counted.layers))
		}
		for j := range kept.layers {
			a, b := kept.layers[j], counted.layers[j]
			if !slices.Equal(a.keys, b.keys) {
				t.Fatalf("level %d: layer %d differs (%d and %d states)", k, j, a.len(), b.len())
			}
			compared += a.len()
		}
	}
	t.Logf("%d states compared", compared)
}

// BenchmarkRetroDeep builds the helper's deep endgame table
// (helperRetroDeep) on capture-264 deals 562 and 112, which sheep/13 left
// unknown: the table's cost is the helper's time before its beam runs
// again. It reports the layers built and the states of the last one, so
// that a faster build is seen to build the same table.
func BenchmarkRetroDeep(b *testing.B) {
	layout := benchLayout(b, "capture-264")
	for _, k := range []int{562, 112} {
		l, err := DealNumber(layout, 1, k, 0)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("deal=%d", k), func(b *testing.B) {
			var r *retroSearch
			for b.Loop() {
				r = newRetroSearch(l)
				r.run(helperRetroDeep, func() bool { return false })
			}
			b.ReportMetric(float64(len(r.layers)-1), "depth")
			b.ReportMetric(float64(r.layers[len(r.layers)-1].len()), "last_states")
		})
	}
}
