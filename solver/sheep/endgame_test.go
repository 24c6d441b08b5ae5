package sheep

import (
	"context"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/puzzled/puzzled/solver"
)

// TestEndgameTableAgainstOracle walks random small levels at random and
// asks, at every state with at most J tiles left, both the endgame table
// and the brute-force oracle whether the state can be cleared: the table
// must hold exactly the states the oracle can clear, on both sides.
func TestEndgameTableAgainstOracle(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(34, 11))
	held, dead := 0, 0
	for k := range 1000 {
		l, e := randomEndgame(t, rng)
		if e == nil {
			continue
		}
		o := newOracle(l)
		for range 20 {
			b := newBoard(l)
			for b.left > 0 {
				if b.left <= e.depth() {
					removed := removedMask(b)
					var line []int
					want := o.dfs(removed, &line)
					if got := e.holds(b); got != want {
						t.Fatalf("level %d %s: %d tiles left, removed %b: table %v, oracle %v", k, l.Canonical(), b.left, removed, got, want)
					}
					if want {
						held++
					} else {
						dead++
					}
				}
				legal := legalClicks(b)
				if len(legal) == 0 {
					break
				}
				b.apply(legal[rng.IntN(len(legal))])
			}
		}
	}
	t.Logf("states checked: %d the table holds, %d it calls dead", held, dead)
	if held < 1000 || dead < 1000 {
		t.Fatalf("too few states checked: %d held, %d dead", held, dead)
	}
}

// TestReachAgainstOracle walks random small levels (smallLevel) at random
// from the start, keeping the rows of the reach cut (reach) as the
// depth-first search does, and asks the oracle about every state above
// the table's depth that the cut calls dead: none may be winnable. It
// also checks that the cut fires, that the beams' check (alive) and
// count (kept) agree with the row, and that at the table's depth a row is non-empty exactly
// when the table holds the state.
func TestReachAgainstOracle(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(34, 14))
	cut, kept := 0, 0
	for k := range 1000 {
		l, e := randomEndgame(t, rng)
		if e == nil {
			continue
		}
		o := newOracle(l)
		for range 20 {
			b := newBoard(l)
			for b.left > e.depth() {
				legal := legalClicks(b)
				if len(legal) == 0 {
					break
				}
				c := legal[rng.IntN(len(legal))]
				alive := e.reach.alive(&e.rows[b.left], c)                   // the beams' check, without the row
				n := e.reach.kept(&e.rows[b.left], c, e.rows[b.left].size()) // the beams' count (beamRun.reach)
				b.apply(c)
				within := e.within(b, c)
				if alive != within {
					t.Fatalf("level %d %s: alive says %v, the row %v", k, l.Canonical(), alive, within)
				}
				if size := e.rows[b.left].size(); n != size {
					t.Fatalf("level %d %s: kept counts %d states within reach, the row holds %d", k, l.Canonical(), n, size)
				}
				if b.left == e.depth() {
					if within != e.holds(b) {
						t.Fatalf("level %d %s: at the table's depth the row says %v, the table %v", k, l.Canonical(), within, e.holds(b))
					}
					break
				}
				if within {
					kept++
					continue
				}
				removed := removedMask(b)
				var line []int
				if o.dfs(removed, &line) {
					t.Fatalf("level %d %s: %d tiles left, removed %b: reach cuts a state the oracle wins by %v", k, l.Canonical(), b.left, removed, line)
				}
				cut++
				break // every state below is cut too
			}
		}
	}
	t.Logf("states above the table's depth: %d cut (all dead), %d kept", cut, kept)
	if cut < 250 || kept < 1000 {
		t.Fatalf("the cut fired too seldom: %d cut, %d kept", cut, kept)
	}
}

// randomEndgame returns a random small level and the endgame table of a
// retrograde search stopped at a random budget, so that the table stops
// short of the start as it does on real levels; e is nil when the level
// fails the precheck or the search completed no layer past W_0.
func randomEndgame(t *testing.T, rng *rand.Rand) (*Level, *endgame) {
	l := mustParse(t, smallLevel(rng))
	if precheckFail(l) != "" {
		return l, nil
	}
	r := newRetroSearch(l)
	r.run(retroPlan{nodes: 1 + rng.Int64N(200), maxLayer: 1 << 20, keep: true}, func() bool { return false })
	if len(r.layers) < 2 {
		return l, nil
	}
	return l, newEndgame(l, r.layers)
}

// removedMask is b's clicked tiles as the oracle's state (levels of at
// most 32 tiles).
func removedMask(b *board) uint32 {
	var removed uint32
	for i := range b.l.tiles {
		if b.removed[i/64]&(1<<(i%64)) != 0 {
			removed |= 1 << i
		}
	}
	return removed
}

// TestEndgameInSchedule solves random small levels through a schedule
// whose retrograde search keeps its layers (the own search's way: beams
// first) and one that runs its exact pass first (tableFirst, the
// helper's way): the oracle's verdicts, every plan replayed (solveVerifiedWith),
// and the table both finishing wins and cutting dead states. Some levels
// are interrupted at random nodes and resumed, which rebuilds the table
// when the resume lands after pass 0.
func TestEndgameInSchedule(t *testing.T) {
	t.Parallel()
	// A short pass 0 and narrow beams leave levels to the passes the
	// table serves.
	beams := []beamRun{{width: 1, dig: 100}, {width: 2, dig: 100}}
	table := retroPlan{nodes: 60, maxLayer: 1 << 10, afterBeams: 1, keep: true}
	for _, tc := range []struct {
		name  string
		sched schedule
	}{
		{"beams first", schedule{first: 4, restart: 20, restarts: 2, restartNear: 80, beams: beams, retro: table}},
		{"table first", schedule{first: 4, beams: beams, retro: retroPlan{nodes: 60, maxLayer: 1 << 10, keep: true},
			tableFirst: true, lateBeams: 50, exactOrder: helperOrder}},
		{"table first, runs", schedule{first: 4, beams: beams, retro: retroPlan{nodes: 60, maxLayer: 1 << 10, keep: true},
			tableFirst: true, lateBeams: 50, exactRuns: 8}},
		// A small table first, then a deep one, as the portfolio's helper.
		{"small table, then deep", schedule{first: 4, beams: beams, retro: retroPlan{nodes: 6, maxLayer: 1 << 10, keep: true},
			retroDeep: retroPlan{nodes: 60, maxLayer: 1 << 10, keep: true}, tableFirst: true, lateBeams: 50, exactRuns: 8}},
		// The same with beams that aim at the deep table, all but the
		// first run by the exact pass after deepLate nodes (sheep/16).
		{"deep beams, some late", schedule{first: 4, beams: beams, retro: retroPlan{nodes: 6, maxLayer: 1 << 10, keep: true},
			retroDeep: retroPlan{nodes: 60, maxLayer: 1 << 10, keep: true}, tableFirst: true, lateBeams: 50, exactRuns: 8,
			deepBeams: []beamRun{{width: 1, dig: 100}, {width: 2, dig: 10, reach: 3000}, {width: 3, dig: 300, reach: 10000}}, deepLate: 6}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(34, 12))
			won, cut, resumed, runs, deep, deepWon, deepLateWon := 0, int64(0), 0, 0, 0, 0, 0
			for k := range 1500 {
				l := mustParse(t, smallLevel(rng))
				res := solveAgainstOracle(t, k, l, tc.sched)
				if precheckFail(l) != "" {
					continue
				}
				s := solvedSearch(l, tc.sched)
				if s.signals.endgameWon {
					won++
				}
				if s.exactRun > 0 {
					runs++
				}
				if s.signals.deepRan {
					deep++
				}
				if s.signals.deepWon {
					deepWon++
				}
				if s.signals.deepLateWon {
					// Resumes before and after deepLate must run them
					// as the uninterrupted search did.
					deepLateWon++
					resumeAtRandom(t, k, l, tc.sched, res, rng, 4)
				}
				cut += s.signals.endgameCut
				if s.end != nil && res.Stats.Nodes > 1 && k%10 == 0 {
					resumeAtRandom(t, k, l, tc.sched, res, rng, 2)
					resumed += 2
				}
			}
			// Cuts are rare here (small levels are decided before their
			// passes reach the table's depth in a dead state);
			// TestEndgameCutsInExactPass counts them.
			t.Logf("wins finished by the table: %d; states cut: %d; resumes: %d; decided after the exact pass's first run: %d; deep table built: %d, its beams won: %d, in the exact pass (deepLate): %d",
				won, cut, resumed, runs, deep, deepWon, deepLateWon)
			if won < 20 || resumed < 10 {
				t.Fatalf("the table fired too seldom: %d wins, %d resumes", won, resumed)
			}
			if (tc.sched.exactRuns > 0) != (runs > 0) {
				t.Fatalf("%d levels decided after the exact pass's first run, with runs of %d nodes", runs, tc.sched.exactRuns)
			}
			if (tc.sched.retroDeep.nodes > 0) != (deep > 0) {
				t.Fatalf("the deep table was built on %d levels, deep plan %+v", deep, tc.sched.retroDeep)
			}
			if (tc.sched.deepLate > 0) != (deepLateWon > 0) {
				t.Fatalf("%d levels won by the deep table's beams in the exact pass, deepLate %d", deepLateWon, tc.sched.deepLate)
			}
		})
	}
}

// TestEndgameCutsInExactPass gives the exact pass, from the start, the
// table of a retrograde search stopped at a random budget, on random small
// levels: it must end as the oracle says (a win replayed, or exhausted
// only where the oracle finds no win) while the table cuts dead states,
// which is what an exhaustive proof then rests on.
//
// Above the table's depth the reach cut (reach) calls states dead whose
// line cannot meet a state of W_J; the same exhausted passes rest on it.
func TestEndgameCutsInExactPass(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(34, 13))
	var cut, reachCut int64
	exhausted, won := 0, 0
	for k := range 1500 {
		// Tight trays and many tiles: dead states near the end, where
		// the table's depth lies.
		l := tightLevel(t, rng, 5, 4, 2)
		if precheckFail(l) != "" {
			continue
		}
		r := newRetroSearch(l)
		if out, _ := r.run(retroPlan{nodes: 1 + rng.Int64N(3000), maxLayer: 1 << 20, keep: true}, func() bool { return false }); out != retroNone || len(r.layers) < 2 || len(r.layers) > len(l.tiles) {
			continue // proven, or no table short of the start
		}
		m, _ := solver.NewMeter(context.Background(), solver.Options{})
		s := newSearch(l, m, schedule{})
		s.end = newEndgame(l, r.layers)
		out := s.solve()
		solvable := newOracle(l).solve() != nil
		switch out {
		case outSolved:
			if _, ok := replayIdx(l, s.path); !ok || !solvable || len(s.path) != len(l.tiles) {
				t.Fatalf("level %d %s: line %v does not win (oracle solvable %v)", k, l.Canonical(), s.path, solvable)
			}
			if s.signals.endgameWon {
				won++
			}
		case outExhausted:
			if solvable {
				t.Fatalf("level %d %s: exhausted with the table, the oracle wins it", k, l.Canonical())
			}
			exhausted++
		default:
			t.Fatalf("level %d: outcome %d", k, out)
		}
		cut += s.signals.endgameCut
		reachCut += s.signals.reachCut
	}
	t.Logf("wins finished by the table: %d; exhausted: %d; states cut: %d at its depth, %d above it (reach)", won, exhausted, cut, reachCut)
	if won < 100 || exhausted < 10 || cut < 5 || reachCut < 20 {
		t.Fatalf("the table fired too seldom: %d wins, %d exhausted, %d cuts, %d reach cuts", won, exhausted, cut, reachCut)
	}
}

// TestReachRowOps checks reach's click, kept and alive against plain
// bitset arithmetic on random rows: sparse and dense, with tiles on the
// board of no state, of states in the row's middle only, or of all of
// its first or last words, and rows whose words are reused from an older,
// longer row (click leaves words outside the new row as they were).
func TestReachRowOps(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(34, 7))
	for round := range 3000 {
		words, tiles := 1+rng.IntN(40), 1+rng.IntN(12)
		r := &reach{words: words, has: make([]uint64, tiles*words), span: make([][2]int32, tiles)}
		for tl := range tiles {
			lo, hi := 0, 0
			if rng.IntN(5) > 0 { // else on the board of no state
				lo = rng.IntN(words)
				hi = lo + 1 + rng.IntN(words-lo)
			}
			has := r.has[tl*words : (tl+1)*words]
			for k := lo; k < hi; k++ {
				switch rng.IntN(4) {
				case 0:
					has[k] = ^uint64(0)
				case 1:
				default:
					has[k] = rng.Uint64() & rng.Uint64()
				}
			}
			a, z := trim(has, 0, words)
			r.span[tl] = [2]int32{int32(a), int32(z)}
		}
		// A random row, trimmed as rows are.
		var src reachRow
		src.own = make([]uint64, words)
		for k := range src.own {
			if rng.IntN(3) > 0 {
				src.own[k] = rng.Uint64()
			}
		}
		src.own[rng.IntN(words)] |= 1 << rng.IntN(64) // rows are never empty
		src.bits = src.own
		src.lo, src.hi = trim(src.own, 0, words)
		n := src.size()
		for tl := range tiles {
			want := make([]uint64, words)
			for k := src.lo; k < src.hi; k++ {
				want[k] = src.bits[k] &^ r.has[tl*words+k]
			}
			wantN := 0
			for _, w := range want {
				wantN += bits.OnesCount64(w)
			}
			// dst's own words hold garbage, as a reused row's do.
			dst := reachRow{own: make([]uint64, words+rng.IntN(3))}
			for k := range dst.own {
				dst.own[k] = rng.Uint64()
			}
			share := rng.IntN(2) == 0
			alive := r.click(&dst, &src, int32(tl), share)
			if alive != (wantN > 0) || r.alive(&src, int32(tl)) != (wantN > 0) {
				t.Fatalf("round %d tile %d: click says %v, alive %v, want %v", round, tl, alive, r.alive(&src, int32(tl)), wantN > 0)
			}
			if got := r.kept(&src, int32(tl), n); got != wantN {
				t.Fatalf("round %d tile %d: kept %d, want %d", round, tl, got, wantN)
			}
			if dst.size() != wantN {
				t.Fatalf("round %d tile %d: row holds %d, want %d", round, tl, dst.size(), wantN)
			}
			if wantN > 0 && (dst.bits[dst.lo] == 0 || dst.bits[dst.hi-1] == 0) {
				t.Fatalf("round %d tile %d: row [%d, %d) not trimmed", round, tl, dst.lo, dst.hi)
			}
			for k := dst.lo; k < dst.hi; k++ {
				if dst.bits[k] != want[k] {
					t.Fatalf("round %d tile %d: word %d is %x, want %x", round, tl, k, dst.bits[k], want[k])
				}
			}
			for k := range want {
				if (k < dst.lo || k >= dst.hi) && want[k] != 0 {
					t.Fatalf("round %d tile %d: word %d (%x) outside the row [%d, %d)", round, tl, k, want[k], dst.lo, dst.hi)
				}
			}
		}
	}
}
