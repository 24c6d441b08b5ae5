package sheep

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/puzzled/puzzled/solver"
)

func TestLuby(t *testing.T) {
	t.Parallel()
	want := []int64{1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8, 1}
	for i, w := range want {
		if got := luby(int64(i + 1)); got != w {
			t.Errorf("luby(%d) = %d, want %d", i+1, got, w)
		}
	}
	sc := schedule{exactRuns: 10}
	for _, tc := range []struct{ n, run int64 }{
		{0, 0}, {9, 0}, {10, 1}, {19, 1}, {20, 2}, {39, 2}, {40, 3}, {49, 3}, {50, 4}, {60, 5}, {80, 6}, {119, 6}, {120, 7},
	} {
		if got := sc.exactRunAt(tc.n); got != tc.run {
			t.Errorf("exactRunAt(%d) = %d, want %d", tc.n, got, tc.run)
		}
	}
	if got := (schedule{}).exactRunAt(1 << 40); got != 0 {
		t.Errorf("without runs: exactRunAt = %d, want 0", got)
	}
}

// TestExactRunsAgainstOracle: an unlimited pass that goes back to its root
// every few nodes (runs of 1–20 nodes times Luby) keeps its verdicts: the
// oracle's on every level, wins replayed, exhaustion only where the
// oracle finds no win, and both decided after runs began. Interrupted at
// random and resumed, it finds the plan of the uninterrupted search (the
// run and its order are a function of the node count).
func TestExactRunsAgainstOracle(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(34, 14))
	wonLate, exhaustedLate, resumed := 0, 0, 0
	for k := range 1500 {
		l := tightLevel(t, rng, 4, 5, 3)
		sched := schedule{exactRuns: 1 + rng.Int64N(20)}
		res := solveAgainstOracle(t, k, l, sched)
		if precheckFail(l) != "" {
			continue
		}
		m, _ := solver.NewMeter(context.Background(), solver.Options{})
		s := newSearch(l, m, sched)
		out := s.solve()
		if s.exactRun == 0 {
			continue
		}
		switch out {
		case outSolved:
			wonLate++
		case outExhausted:
			exhaustedLate++
		}
		if res.Stats.Nodes > 1 && k%3 == 0 {
			resumeAtRandom(t, k, l, sched, res, rng, 2)
			resumed += 2
		}
	}
	t.Logf("decided after the first run: %d won, %d exhausted; resumes: %d", wonLate, exhaustedLate, resumed)
	if wonLate < 20 || exhaustedLate < 20 || resumed < 20 {
		t.Fatalf("runs fired too seldom: %d won, %d exhausted, %d resumes", wonLate, exhaustedLate, resumed)
	}
}

// TestLateWideBeams: with lateWide set, the deferred beams no wider than
// lateFree run at lateBeams nodes of the unlimited pass and the wider
// ones at lateWide, never before; the verdicts stay the oracle's, plans
// replay, and searches resumed at random find the uninterrupted plan.
func TestLateWideBeams(t *testing.T) {
	t.Parallel()
	sched := schedule{first: 2, lateBeams: 3, lateWide: 12, exactRuns: 40,
		beams: []beamRun{{width: 1, dig: 100, late: true}, {width: lateFree + 1, dig: 100, late: true}}}
	rng := rand.New(rand.NewPCG(34, 15))
	narrow, wide, wideWon, resumed := 0, 0, 0, 0
	for k := range 1500 {
		l := mustParse(t, smallLevel(rng))
		res := solveAgainstOracle(t, k, l, sched)
		if precheckFail(l) != "" {
			continue
		}
		m, _ := solver.NewMeter(context.Background(), solver.Options{})
		s := newSearch(l, m, sched)
		s.solve()
		if s.signals.lateRun {
			narrow++
		}
		if s.signals.wideAt != 0 {
			if s.signals.wideAt != sched.lateWide {
				t.Fatalf("level %d: the wide beam ran at %d nodes of the pass, not %d", k, s.signals.wideAt, sched.lateWide)
			}
			wide++
			if s.signals.beamWon {
				wideWon++
			}
		}
		if s.signals.lateRun && res.Stats.Nodes > 1 && k%3 == 0 {
			resumeAtRandom(t, k, l, sched, res, rng, 2)
			resumed += 2
		}
	}
	t.Logf("deferred beams ran on %d levels, the wide one on %d (won %d); resumes: %d", narrow, wide, wideWon, resumed)
	if wide < 20 || wideWon < 5 || narrow <= wide || resumed < 20 {
		t.Fatalf("late beams fired too seldom: %d levels, %d with the wide one (%d won), %d resumes", narrow, wide, wideWon, resumed)
	}
}
