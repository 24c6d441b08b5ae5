package sheep

import (
	"math/rand/v2"
	"testing"

	"github.com/puzzled/puzzled/solver"
)

// TestSleepSetsAgainstOracle exhausts random small levels with and without
// sleep sets: both reach the oracle's verdict, winning lines replay, sleep
// sets skip moves and leave states with one free slot without a move
// (completable; the test fails if either never fires) and the searches
// with them take fewer nodes in all. Small tables (some levels) make the
// table evict, so sleep sets are also checked where dead states are
// forgotten and states are revisited with other sleep sets.
func TestSleepSetsAgainstOracle(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(14, 2027))
	var slept, noMove, withNodes, withoutNodes int64
	unsolvable := 0
	for k := range 1500 {
		l := mustParse(t, smallLevel(rng))
		if precheckFail(l) != "" {
			continue
		}
		want := newOracle(l).solve() != nil
		if !want {
			unsolvable++
		}
		for _, on := range []bool{true, false} {
			sched := schedule{noSleep: !on}
			if k%3 == 0 {
				sched.tableMax = 4 << (k % 4)
			}
			m, _ := solver.NewMeter(t.Context(), solver.Options{})
			s := newSearch(l, m, sched)
			out := s.solve()
			if (out == outSolved) != want || (out != outSolved && out != outExhausted) {
				t.Fatalf("level %d %s: sleep sets %v, table %d: outcome %d, oracle solvable %v", k, l.Canonical(), on, sched.tableMax, out, want)
			}
			if out == outSolved {
				if o, err := replay(l, s.path); err != nil || !o.Won {
					t.Fatalf("level %d: line does not win: %v", k, err)
				}
			}
			if on {
				slept += s.signals.slept
				noMove += s.signals.noMove
				withNodes += m.Stats(0).Nodes
			} else {
				withoutNodes += m.Stats(0).Nodes
			}
		}
	}
	t.Logf("%d unsolvable; sleep sets skipped %d moves; %d states without a move retracted before the table; nodes %d with, %d without",
		unsolvable, slept, noMove, withNodes, withoutNodes)
	if slept == 0 || noMove == 0 || withNodes >= withoutNodes || unsolvable == 0 {
		t.Fatalf("sleep sets skipped %d moves; nodes %d with, %d without; %d unsolvable", slept, withNodes, withoutNodes, unsolvable)
	}
}

// TestLegalAfter checks legalAfter against clicking on a real board, for
// every pair of clickable legal tiles in the states of random walks.
func TestLegalAfter(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(14, 9))
	pairs, illegal := 0, 0
	for range 300 {
		l := mustParse(t, smallLevel(rng))
		b := newBoard(l)
		for b.left > 0 {
			legal := legalClicks(b)
			if len(legal) == 0 {
				break
			}
			for _, z := range legal {
				for _, x := range legal {
					if x == z {
						continue
					}
					want := func() bool {
						b.apply(z)
						defer b.undo(z)
						return b.legal(x)
					}()
					if got := legalAfter(b, z, x); got != want {
						t.Fatalf("legalAfter(%d, %d) = %v, clicking says %v", z, x, got, want)
					}
					pairs++
					if !want {
						illegal++
					}
				}
			}
			b.apply(legal[rng.IntN(len(legal))])
		}
	}
	if illegal == 0 || pairs == illegal {
		t.Fatalf("%d pairs, %d illegal: both answers must occur", pairs, illegal)
	}
}

// TestSleepInvariant drives the unlimited pass by hand on random small
// levels and checks the invariant of sleep.go at every frame opened: each
// asleep move is a legal click of the frame's state and leads to a state
// the oracle finds unwinnable. It catches an unsound sleep set even where the
// verdict happens to come out right.
func TestSleepInvariant(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(14, 31))
	checked := 0
	for k := range 800 {
		l := mustParse(t, smallLevel(rng))
		if precheckFail(l) != "" || len(l.tiles) > 32 {
			continue
		}
		o := newOracle(l)
		m, _ := solver.NewMeter(t.Context(), solver.Options{})
		s := newSearch(l, m, schedule{})
		s.pushFrame()
		for len(s.frames) > 0 {
			f := &s.frames[len(s.frames)-1]
			if f.next == f.end {
				s.pop()
				continue
			}
			if s.asleep(f, s.arena[f.next]) {
				f.next++
				continue
			}
			mv := s.arena[f.next]
			f.next++
			s.childSleep(f, mv)
			depth := len(s.frames)
			if s.step(mv) {
				break
			}
			if len(s.frames) == depth {
				continue
			}
			top := s.frames[len(s.frames)-1]
			for _, z := range s.sleep[top.sleepAt:top.sleepEnd] {
				if !s.b.clickable(z) || !s.b.legal(z) {
					t.Fatalf("level %d: asleep move %d after %v is not a legal click", k, z, s.path)
				}
				removed := uint32(s.b.removed[0]) | 1<<z
				var line []int
				if o.dfs(removed, &line) {
					t.Fatalf("level %d %s: asleep move %d after %v wins", k, l.Canonical(), z, s.path)
				}
				checked++
			}
		}
	}
	if checked < 100 {
		t.Fatalf("only %d asleep moves checked", checked)
	}
	t.Logf("%d asleep moves checked against the oracle", checked)
}
