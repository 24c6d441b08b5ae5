package sheep

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/puzzled/puzzled/solver"
)

// beamTinySchedule is tinySchedule with a pass 0 of one node, so beams
// decide most small levels, and beams narrow enough (a width-1 beam is a
// greedy playout) that a few solvable ones are left to later passes.
var beamTinySchedule = schedule{first: 1, restart: 15, restarts: 25,
	proj:  projectionPlan{extra: 2, subsets: 12, perNodes: 30, total: 300},
	beams: []beamRun{{width: 1, dig: 0}, {width: 2, dig: 100}}}

// TestBeamAgainstOracle: on random small levels every line a beam returns
// replays as a win, and a beam never claims a level the brute-force oracle
// finds unsolvable; beams of each width win some of the solvable ones.
func TestBeamAgainstOracle(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(21, 2026))
	runs := []beamRun{{width: 1, dig: 0}, {width: 4, dig: 100}, {width: 16, dig: 100}, {width: 64, dig: 200}}
	wins := make([]int, len(runs))
	solvable := 0
	for k := range 1500 {
		l := mustParse(t, smallLevel(rng))
		want := newOracle(l).solve() != nil
		if want {
			solvable++
		}
		for r, br := range runs {
			if won, _ := runBeamChecked(t, k, l, want, br); won {
				wins[r]++
			}
		}
	}
	t.Logf("%d solvable levels; wins by beam %v: %v", solvable, runs, wins)
	for r, w := range wins {
		// a wider beam keeps more lines: it should win at least as
		// often over many levels, and every beam must fire
		if w == 0 || w > solvable || (r > 0 && w < wins[0]) {
			t.Fatalf("beam wins %v of %d solvable levels", wins, solvable)
		}
	}
}

// TestBeamScheduleAgainstOracle: with beams in the schedule the solver's
// verdicts still agree with the oracle's, every plan replays (solveWith
// verifies), and some levels are won by a beam while others go on to the
// restarts and the exact pass, which proves the unsolvable ones.
func TestBeamScheduleAgainstOracle(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(22, 2026))
	beamWins, unsolvable, later := 0, 0, 0
	for k := range 1500 {
		l := mustParse(t, smallLevel(rng))
		want := solver.Unsolvable
		if newOracle(l).solve() != nil {
			want = solver.Solved
		}
		res := solveVerifiedWith(t, l, solver.Options{}, beamTinySchedule)
		if res.Verdict != want {
			t.Fatalf("level %d %s: solver %s (%s), oracle %s", k, l.Canonical(), res.Verdict, res.Proof, want)
		}
		m, _ := solver.NewMeter(context.Background(), solver.Options{})
		s := newSearch(l, m, beamTinySchedule)
		if precheckFail(l) != "" {
			continue
		}
		switch out := s.solve(); {
		case s.signals.beamWon:
			beamWins++
			if out != outSolved {
				t.Fatalf("level %d: beam won but the search ended %d", k, out)
			}
		case out == outSolved && s.pass > 0:
			later++
		case out != outSolved:
			unsolvable++
		}
	}
	t.Logf("won by a beam %d, won by a later pass %d, proven unsolvable %d", beamWins, later, unsolvable)
	if beamWins < 20 || later == 0 || unsolvable < 20 {
		t.Fatalf("beam schedule not exercised: beam wins %d, later wins %d, unsolvable %d", beamWins, later, unsolvable)
	}
}

// TestBeamResume interrupts searches whose schedule has beams at a random
// node, then resumes from the checkpoint: same verdict and plan as an
// uninterrupted run. A resume in pass 0 runs the beams again from the
// start (they keep nothing in checkpoints), so node counts grow, but the
// beams are a pure function of the level: the same line wins.
func TestBeamResume(t *testing.T) {
	t.Parallel()
	sched := schedule{first: 30, restart: 20, restarts: 3, beams: []beamRun{{width: 4, dig: 100}, {width: 32, dig: 100}}}
	rng := rand.New(rand.NewPCG(23, 3))
	beamWins, totalResumes := 0, 0
	for k := 1; k <= 12; k++ {
		g, err := Generate(rand.New(rand.NewPCG(uint64(k), 99)), GenerateOpts{Solvable: true})
		if err != nil {
			t.Fatal(err)
		}
		l := g.Level
		full := solveVerifiedWith(t, l, solver.Options{Budget: solver.Budget{MaxNodes: 200_000}}, sched)
		if full.Verdict != solver.Solved {
			continue
		}
		m, _ := solver.NewMeter(context.Background(), solver.Options{})
		if s := newSearch(l, m, sched); s.solve() == outSolved && s.signals.beamWon {
			beamWins++
		}
		resumeAtRandom(t, k, l, sched, full, rng, 3)
		totalResumes += 3
	}
	t.Logf("%d levels won by a beam, %d resumes", beamWins, totalResumes)
	if beamWins < 3 || totalResumes < 10 {
		t.Fatalf("only %d levels won by a beam, %d resumes", beamWins, totalResumes)
	}
}

// TestBeamWinsL255wDeal3: deal 3 of L255w is solvable, but its winning
// line leaves the move order's first choice at 51 clicks; the exact pass
// needs 125.7M nodes and a 3 GB table to find it, and 128 restarts never
// do. The first default beam wins it within 2M nodes; the same schedule
// without beams does not.
func TestBeamWinsL255wDeal3(t *testing.T) {
	if testing.Short() {
		t.Skip("a real-size deal: about 2 s")
	}
	t.Parallel()
	d, err := Deal(rand.New(rand.NewPCG(1, 3)), benchLayout(t, "L255w"), 0)
	if err != nil {
		t.Fatal(err)
	}
	opts := solver.Options{Budget: solver.Budget{MaxNodes: 2_000_000}}
	if res := solveVerifiedWith(t, d, opts, restartSchedule); res.Verdict != solver.Solved {
		t.Fatalf("with beams: %s after %d nodes", res.Verdict, res.Stats.Nodes)
	}
	noBeams := restartSchedule
	noBeams.beams = nil
	if res := solveVerifiedWith(t, d, opts, noBeams); res.Verdict != solver.Unknown {
		t.Fatalf("without beams: %s after %d nodes; the test no longer shows what beams add", res.Verdict, res.Stats.Nodes)
	}
}

// TestBeamBestLine: a beam that dies out leaves the search's best partial
// line at the state it saw that cleared the most tiles, and that line
// replays without losing to exactly that many cleared tiles.
func TestBeamBestLine(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(24, 2026))
	improved := 0
	for k := range 600 {
		l := mustParse(t, smallLevel(rng))
		m, _ := solver.NewMeter(context.Background(), solver.Options{})
		s := newSearch(l, m, schedule{})
		line, cleared, _ := s.beamSearch(beamRun{width: 8, dig: 100})
		if line != nil {
			continue
		}
		if cleared != s.bestCleared {
			t.Fatalf("level %d: beam reports %d cleared, best line %d", k, cleared, s.bestCleared)
		}
		if s.bestCleared == 0 {
			continue
		}
		improved++
		o, err := replay(l, s.best)
		if err != nil || o.Lost || o.Cleared != s.bestCleared {
			t.Fatalf("level %d %s: best line %v clears %d, replay %+v %v", k, l.Canonical(), s.best, s.bestCleared, o, err)
		}
	}
	t.Logf("%d dead beams left a best line", improved)
	if improved < 10 {
		t.Fatalf("only %d dead beams left a best line", improved)
	}
}

// TestBeamGate: a beam with near runs only when an earlier beam's best
// state cleared at least near percent of the tiles. On small levels that a
// greedy beam (width 1) does not win but a wide one does, the wide beam
// wins with near at the greedy beam's share and is skipped one percent
// above it.
func TestBeamGate(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(25, 2026))
	gated := 0
	for k := range 1500 {
		l := mustParse(t, smallLevel(rng))
		m, _ := solver.NewMeter(context.Background(), solver.Options{})
		s := newSearch(l, m, schedule{})
		greedy, cleared, _ := s.beamSearch(beamRun{width: 1})
		if greedy != nil {
			continue
		}
		if wide, _, _ := s.beamSearch(beamRun{width: 64, dig: 100}); wide == nil {
			continue
		}
		gated++
		n := len(l.tiles)
		near := cleared * 100 / n // the most percent the greedy beam reached
		for _, c := range []struct {
			near int
			wins bool
		}{{near, true}, {near + 1, false}} {
			sched := schedule{beams: []beamRun{{width: 1}, {width: 64, dig: 100, near: c.near}}}
			s := newSearch(l, m, sched)
			line, _ := s.beamPhase()
			if (line != nil) != c.wins {
				t.Fatalf("level %d: greedy cleared %d of %d, near %d: won %t", k, cleared, n, c.near, line != nil)
			}
		}
	}
	t.Logf("%d levels won only by the gated beam", gated)
	if gated < 5 {
		t.Fatalf("only %d levels exercise the gate", gated)
	}
}

// TestRestartGate runs random small levels through a schedule with
// restarts, beams and the restart gate at 0 % (restarts always run), 50 %
// and 101 % (never): every run reaches the oracle's verdict (solved or
// exhausted, never stopped), the restarts are skipped exactly when the
// best line at the gate cleared less than the threshold, and both sides of
// the 50 % gate occur.
func TestRestartGate(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(26, 2026))
	skipped := map[int]int{}
	ran := map[int]int{}
	for k := range 1200 {
		l := mustParse(t, smallLevel(rng))
		if precheckFail(l) != "" {
			continue
		}
		want := newOracle(l).solve() != nil
		for _, near := range []int{0, 50, 101} {
			sched := schedule{first: 4, restart: 4, restarts: 3, beams: []beamRun{{width: 1}}, restartNear: near}
			m, _ := solver.NewMeter(context.Background(), solver.Options{})
			s := newSearch(l, m, sched)
			out := s.solve()
			if (out == outSolved) != want || (out != outSolved && out != outExhausted) {
				t.Fatalf("level %d %s: gate %d %%: outcome %d, oracle solvable %v", k, l.Canonical(), near, out, want)
			}
			if out == outSolved {
				if o, err := replay(l, s.path); err != nil || !o.Won {
					t.Fatalf("level %d: line does not win: %v", k, err)
				}
			}
			if s.pass == 0 || s.signals.beamWon {
				continue // decided before the gate
			}
			if want := s.signals.gateCleared*100 < near*len(l.tiles); s.signals.skipped != want {
				t.Fatalf("level %d: gate %d %%, best line %d of %d tiles: skipped %v", k, near, s.signals.gateCleared, len(l.tiles), s.signals.skipped)
			}
			if s.signals.skipped {
				skipped[near]++
				if s.pass != sched.restarts+1 {
					t.Fatalf("level %d: restarts skipped but pass %d", k, s.pass)
				}
			} else {
				ran[near]++
			}
		}
	}
	t.Logf("restarts skipped %v, run %v (by gate %%)", skipped, ran)
	if skipped[0] != 0 || ran[101] != 0 || skipped[50] == 0 || ran[50] == 0 || skipped[101] == 0 {
		t.Fatalf("restarts skipped %v, run %v: the gate must fire on both sides", skipped, ran)
	}
}

// TestBestKids: bestKids keeps the same children in the same order, and
// drops as many, as capKids after a full sortKids, on random layers of
// up to 40,000 children: scores from few values (long runs of ties,
// broken by hash) or many, few parents or many, caps that stop the walk
// early and caps that send it past the selected front.
func TestBestKids(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 34))
	past := 0 // layers where the walk went past the front
	for round := range 400 {
		n := rng.IntN(40000) + 1
		if round%4 == 0 {
			n = rng.IntN(200) + 1
		}
		parents := rng.IntN(2000) + 1
		scores := int64(rng.IntN(3) * 1000)
		kids := make([]beamNode, n)
		for k := range kids {
			score := rng.Int64N(1 << 40)
			if scores > 0 {
				score = rng.Int64N(scores) + 1
			}
			kids[k] = beamNode{parent: int32(rng.IntN(parents)), tile: int32(k), score: score, hash: rng.Uint64() | 1}
		}
		width, perParent := rng.IntN(2000)+1, rng.IntN(4)
		want := slices.Clone(kids)
		sortKids(want)
		if perParent > 0 && 4*width < len(want) {
			if kept, _ := capKids(slices.Clone(want[:4*width]), width, perParent); len(kept) < width {
				past++
			}
		}
		want, wantDropped := capKids(want, width, perParent)
		got, dropped := bestKids(kids, width, perParent, nil)
		if !slices.Equal(got, want) || dropped != wantDropped {
			t.Fatalf("round %d (%d kids, %d parents, width %d, cap %d): bestKids kept %d dropped %d, capKids %d dropped %d",
				round, n, parents, width, perParent, len(got), dropped, len(want), wantDropped)
		}
	}
	if past == 0 {
		t.Fatal("no layer sent the walk past the front: that branch went untested")
	}
}

// TestBestKidsCounted: with scores that are upper bounds until counted
// (a beam that weighs the endgame states within reach), bestKids keeps
// the same children, with the same exact scores and counts, as it does
// from exact scores, and counts fewer children than the layer holds.
func TestBestKidsCounted(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(8, 34))
	counted, all := 0, 0
	for round := range 300 {
		n := rng.IntN(30000) + 1
		if round%4 == 0 {
			n = rng.IntN(200) + 1
		}
		width, perParent := rng.IntN(2000)+1, rng.IntN(4)
		parents := rng.IntN(2000) + 1
		if round%2 == 1 {
			// Parents enough for width children, barely: the walk goes
			// deep into the front, where a child wrongly left uncounted
			// would take a place.
			parents = max(1, width/max(1, perParent)+rng.IntN(width/4+1))
		}
		exact := make([]beamNode, n)
		bound := make([]beamNode, n)
		spread := int64(1) << (8 + rng.IntN(14)) // scores dense or sparse against the bounds' slack
		for k := range exact {
			score := rng.Int64N(spread)
			exact[k] = beamNode{parent: int32(rng.IntN(parents)), tile: int32(k), score: score, hash: rng.Uint64() | 1, within: rng.IntN(100) + 1}
			bound[k] = exact[k]
			bound[k].within = 0
			if rng.IntN(4) > 0 {
				bound[k].score += rng.Int64N(1 << 12)
			}
		}
		count := func(ks []beamNode) {
			for i := range ks {
				if ks[i].within == 0 {
					ks[i] = exact[ks[i].tile]
					counted++
				}
			}
		}
		all += n
		want, wantDropped := bestKids(slices.Clone(exact), width, perParent, nil)
		got, dropped := bestKids(bound, width, perParent, count)
		if !slices.Equal(got, want) || dropped != wantDropped {
			t.Fatalf("round %d (%d kids, width %d, cap %d): kept %d dropped %d, from exact scores %d dropped %d",
				round, n, width, perParent, len(got), dropped, len(want), wantDropped)
		}
	}
	t.Logf("counted %d of %d children", counted, all)
	if counted >= all {
		t.Fatalf("counted all %d children", all)
	}
}

// TestHashSet: hashSet.add agrees with a map, 0 included, across growth
// and clear.
func TestHashSet(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	var s hashSet
	for range 5 {
		s.clear()
		m := map[uint64]bool{}
		for range 20000 {
			h := rng.Uint64N(30000) // repeats, and 0
			if got, want := s.add(h), !m[h]; got != want {
				t.Fatalf("add(%d) = %v, want %v", h, got, want)
			}
			m[h] = true
		}
	}
}

// TestCapKids: sortKids orders a layer best first (ties by hash), and
// capKids keeps a layer that fits whole, else at most perParent children
// of a parent, stopping at width, and with perParent 0 takes the first
// width like sheep/6.
func TestCapKids(t *testing.T) {
	t.Parallel()
	type kid struct {
		parent int32
		score  int64
		hash   uint64
	}
	cases := []struct {
		name             string
		kids             []kid
		width, perParent int
		want             []uint64 // hashes of the kept kids, in order
		dropped          int
	}{
		{"empty", nil, 4, 2, nil, 0},
		{"no cap, all fit", []kid{{0, 5, 1}, {0, 9, 2}, {1, 7, 3}}, 4, 0, []uint64{2, 3, 1}, 0},
		{"no cap, first width", []kid{{0, 5, 1}, {0, 9, 2}, {0, 8, 4}, {1, 7, 3}}, 2, 0, []uint64{2, 4}, 0},
		{"cap 1", []kid{{0, 9, 1}, {0, 8, 2}, {1, 7, 3}, {1, 6, 4}, {2, 5, 5}}, 4, 1, []uint64{1, 3, 5}, 2},
		{"cap 2", []kid{{0, 9, 1}, {0, 8, 2}, {0, 7, 3}, {1, 6, 4}, {2, 5, 5}, {2, 4, 6}, {2, 3, 7}}, 6, 2, []uint64{1, 2, 4, 5, 6}, 2},
		{"width stops the walk", []kid{{0, 9, 1}, {0, 8, 2}, {1, 7, 3}, {0, 6, 4}, {1, 5, 5}, {2, 4, 6}}, 2, 1, []uint64{1, 3}, 1},
		{"all from one parent", []kid{{3, 1, 10}, {3, 4, 11}, {3, 3, 12}, {3, 2, 13}}, 3, 2, []uint64{11, 12}, 2},
		{"ties by hash", []kid{{0, 5, 40}, {1, 5, 10}, {0, 5, 20}, {1, 5, 30}}, 3, 1, []uint64{10, 20}, 2},
		{"cap above every count", []kid{{0, 9, 1}, {1, 8, 2}, {0, 7, 3}}, 2, 5, []uint64{1, 2}, 0},
		{"a layer that fits is kept whole", []kid{{0, 3, 1}, {0, 2, 2}, {1, 1, 3}}, 3, 1, []uint64{1, 2, 3}, 0},
		{"one more than fits", []kid{{0, 3, 1}, {0, 2, 2}, {1, 1, 3}, {1, 0, 4}}, 3, 1, []uint64{1, 3}, 2},
	}
	for _, c := range cases {
		kids := make([]beamNode, len(c.kids))
		for k, kd := range c.kids {
			kids[k] = beamNode{parent: kd.parent, tile: int32(k), score: kd.score, hash: kd.hash}
		}
		sortKids(kids)
		for k := 1; k < len(kids); k++ {
			x, y := kids[k-1], kids[k]
			if x.score < y.score || (x.score == y.score && x.hash > y.hash) {
				t.Fatalf("%s: sortKids out of order at %d: %+v", c.name, k, kids)
			}
		}
		kept, dropped := capKids(kids, c.width, c.perParent)
		var got []uint64
		for _, kd := range kept {
			got = append(got, kd.hash)
		}
		if !slices.Equal(got, c.want) || dropped != c.dropped {
			t.Errorf("%s: kept %v dropped %d, want %v dropped %d", c.name, got, dropped, c.want, c.dropped)
		}
	}
}

// TestBeamPerParentAgainstOracle: on random small levels beams with a
// per-parent cap (1 and 2, widths 4 to 64, two with noise) only ever return lines that
// replay as wins, never on a level the oracle finds unsolvable, and the
// cap fires on many levels.
func TestBeamPerParentAgainstOracle(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(27, 2026))
	var runs []beamRun
	for _, w := range []int{4, 8, 16, 64} {
		for _, pp := range []int{1, 2} {
			runs = append(runs, beamRun{width: w, dig: 100, perParent: pp})
		}
	}
	// Noise (sheep/8) reorders near-ties: its beams must be as sound.
	runs = append(runs, beamRun{width: 8, dig: 400, perParent: 2, noise: 300, seed: 3},
		beamRun{width: 16, dig: 200, perParent: 1, noise: 1000, seed: 1})
	wins := make([]int, len(runs))
	cappedLevels := make([]int, len(runs))
	solvable := 0
	const levels = 1000
	for k := range levels {
		l := mustParse(t, smallLevel(rng))
		want := newOracle(l).solve() != nil
		if want {
			solvable++
		}
		for r, br := range runs {
			won, capped := runBeamChecked(t, k, l, want, br)
			if won {
				wins[r]++
			}
			if capped > 0 {
				cappedLevels[r]++
			}
		}
	}
	t.Logf("%d of %d levels solvable; beams %v: wins %v, levels where the cap fired %v", solvable, levels, runs, wins, cappedLevels)
	if solvable > levels*9/10 || solvable < levels/2 {
		t.Fatalf("%d of %d levels solvable: the test needs both kinds", solvable, levels)
	}
	for r := range runs {
		if wins[r] == 0 || cappedLevels[r] < levels/10 {
			t.Fatalf("beam %+v: %d wins, cap fired on %d of %d levels", runs[r], wins[r], cappedLevels[r], levels)
		}
	}
}

// runBeamChecked runs beam br on level k (l) without a budget and checks
// its line against the oracle's verdict want: a beam may miss a win, but
// a line it returns must replay as one. It reports whether it won and how
// many children the per-parent cap dropped.
func runBeamChecked(t *testing.T, k int, l *Level, want bool, br beamRun) (won bool, capped int64) {
	t.Helper()
	m, _ := solver.NewMeter(context.Background(), solver.Options{})
	s := newSearch(l, m, schedule{})
	line, _, stopped := s.beamSearch(br)
	if stopped {
		t.Fatalf("level %d: beam stopped without a budget", k)
	}
	if line == nil {
		return false, s.signals.capped
	}
	if !want {
		t.Fatalf("level %d %s: beam %+v wins a level the oracle finds unsolvable", k, l.Canonical(), br)
	}
	if o, err := replay(l, line); err != nil || !o.Won {
		t.Fatalf("level %d %s: beam %+v line does not win: %v %+v", k, l.Canonical(), br, err, o)
	}
	return true, s.signals.capped
}

// TestBeamNoise: noise is a function of the state (the same beam twice
// gives the same line), and it changes what a beam keeps: with it the
// beam wins or loses other levels, or wins them along other lines.
func TestBeamNoise(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(31, 8))
	plain := beamRun{width: 8, dig: 400, perParent: 2}
	noisy := plain
	noisy.noise, noisy.seed = 300, 3
	line := func(l *Level, br beamRun) string {
		m, _ := solver.NewMeter(context.Background(), solver.Options{})
		got, _, _ := newSearch(l, m, schedule{}).beamSearch(br)
		return fmt.Sprint(got)
	}
	differ := 0
	for range 300 {
		l := mustParse(t, smallLevel(rng))
		a, b := line(l, noisy), line(l, noisy)
		if a != b {
			t.Fatalf("%s: the noisy beam gave %s, then %s", l.Canonical(), a, b)
		}
		if a != line(l, plain) {
			differ++
		}
	}
	if differ < 10 {
		t.Fatalf("noise changed the beam's line on %d of 300 levels", differ)
	}
	t.Logf("noise changed the line on %d of 300 levels", differ)
}

// TestLateBeams: a beam the gate keeps out of the beam phase, or a late
// one, runs in the unlimited pass at schedule.lateBeams nodes. On random small levels the
// verdicts stay the oracle's and every plan replays (solveVerifiedWith);
// the deferred beam wins some levels; and a search interrupted anywhere,
// in the beam phase, in the unlimited pass before the deferred beam or
// inside it, and resumed from its checkpoint, ends with the plan of the
// uninterrupted search (the payload carries the deferred beams).
func TestLateBeams(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		wide beamRun
	}{
		{"gated", beamRun{width: 64, dig: 100, near: 101}}, // the gate always defers it
		{"late", beamRun{width: 64, dig: 100, late: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			testLateBeams(t, schedule{first: 1, beams: []beamRun{{width: 1}, c.wide}, lateBeams: 8})
		})
	}
}

// TestLateFree: after the first deferred beam, one no wider than
// lateFree runs even when the earlier ones fell short of lateNear, and a
// wider one does not. On random small levels, with two gated beams
// behind a first that always defers them: the oracle's verdicts, every
// plan replayed; the narrow second beam runs past the gate on some
// levels and wins some of them; the same beam one wider than lateFree
// never runs past the gate.
func TestLateFree(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		width int
		fires bool
	}{{8, true}, {lateFree + 1, false}} {
		sched := schedule{first: 1, lateBeams: 8, beams: []beamRun{{width: 1},
			{width: 1, near: 101}, {width: c.width, dig: 100, near: 101}}}
		rng := rand.New(rand.NewPCG(34, 10))
		ran, won := 0, 0
		for k := range 1500 {
			l := mustParse(t, smallLevel(rng))
			want := solver.Unsolvable
			if newOracle(l).solve() != nil {
				want = solver.Solved
			}
			if got := solveVerifiedWith(t, l, solver.Options{}, sched); got.Verdict != want {
				t.Fatalf("width %d, level %d %s: solver %s (%s), oracle %s", c.width, k, l.Canonical(), got.Verdict, got.Proof, want)
			}
			if precheckFail(l) != "" {
				continue
			}
			m, _ := solver.NewMeter(context.Background(), solver.Options{})
			s := newSearch(l, m, sched)
			out := s.solve()
			if s.signals.lateFree > 0 {
				ran++
				if out == outSolved && s.signals.beamWon {
					won++
				}
			}
		}
		t.Logf("width %d: ran past the gate on %d levels, won %d", c.width, ran, won)
		if c.fires && (ran < 10 || won < 5) || !c.fires && ran > 0 {
			t.Fatalf("width %d: ran past the gate on %d levels, won %d", c.width, ran, won)
		}
	}
}

func testLateBeams(t *testing.T, sched schedule) {
	rng := rand.New(rand.NewPCG(41, 8))
	lateWins, resumes := 0, 0
	for k := range 1500 {
		l := mustParse(t, smallLevel(rng))
		want := solver.Unsolvable
		if newOracle(l).solve() != nil {
			want = solver.Solved
		}
		full := solveVerifiedWith(t, l, solver.Options{}, sched)
		if full.Verdict != want {
			t.Fatalf("level %d %s: solver %s (%s), oracle %s", k, l.Canonical(), full.Verdict, full.Proof, want)
		}
		if precheckFail(l) != "" {
			continue
		}
		m, _ := solver.NewMeter(context.Background(), solver.Options{})
		s := newSearch(l, m, sched)
		if out := s.solve(); out != outSolved || !s.signals.lateRun || !s.signals.beamWon {
			continue
		}
		lateWins++
		resumeAtRandom(t, k, l, sched, full, rng, 4)
		resumes += 4
	}
	t.Logf("%d levels won by the deferred beam, %d resumes", lateWins, resumes)
	if lateWins < 10 {
		t.Fatalf("only %d levels won by the deferred beam", lateWins)
	}
}

// resumeAtRandom interrupts the search of level k n times, each at a
// random node before its end, and resumes it from its last checkpoint
// with a budget that lets every phase run again in full: the resumed
// search must end with full's verdict and plan.
func resumeAtRandom(t *testing.T, k int, l *Level, sched schedule, full solver.Result, rng *rand.Rand, n int) {
	t.Helper()
	for range n {
		var got []byte
		opts := solver.Options{
			Budget:          solver.Budget{MaxNodes: 1 + rng.Int64N(full.Stats.Nodes)},
			CheckpointEvery: time.Nanosecond,
			Checkpoint:      func(b []byte) { got = append(got[:0], b...) },
		}
		first := solveVerifiedWith(t, l, opts, sched)
		if first.Verdict != solver.Unknown || got == nil {
			t.Fatalf("level %d: %s within %d of the %d nodes it needs", k, first.Verdict, opts.Budget.MaxNodes, full.Stats.Nodes)
		}
		opts.Budget.MaxNodes = first.Stats.Nodes + full.Stats.Nodes + 1
		opts.Resume, opts.Checkpoint = got, nil
		last := solveVerifiedWith(t, l, opts, sched)
		if !last.Stats.Resumed || last.Verdict != full.Verdict || !bytes.Equal(last.Plan, full.Plan) {
			t.Fatalf("level %d: resumed %s %s, uninterrupted %s %s", k, last.Verdict, last.Plan, full.Verdict, full.Plan)
		}
	}
}

// TestBeamReachAgainstOracle: beams that weigh the endgame states within
// reach (beamRun.reach) on random small levels with endgame tables of
// random depth (randomEndgame): every line replays as a win, no beam wins
// a level the brute-force oracle finds unsolvable, the same beam twice
// gives the same line, and the weight changes what the beam keeps (other
// lines, other levels won) on some levels.
func TestBeamReachAgainstOracle(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(35, 15))
	plain := beamRun{width: 4, dig: 10, perParent: 2}
	aimed := plain
	aimed.reach = 3000
	run := func(l *Level, e *endgame, br beamRun) []int32 {
		m, _ := solver.NewMeter(context.Background(), solver.Options{})
		s := newSearch(l, m, schedule{})
		s.end = e
		s.checkRows = true
		line, _, stopped := s.beamSearch(br)
		if stopped {
			t.Fatalf("%s: beam stopped without a budget", l.Canonical())
		}
		if s.signals.rowsWrong > 0 {
			t.Fatalf("%s: beam %+v: %d reach rows differ from the rows built along their lines", l.Canonical(), br, s.signals.rowsWrong)
		}
		return line
	}
	levels, wins, differ := 0, [2]int{}, 0
	for k := range 1500 {
		l, e := randomEndgame(t, rng)
		if e == nil {
			continue
		}
		levels++
		want := newOracle(l).solve() != nil
		var lines [2][]int32
		for i, br := range []beamRun{plain, aimed} {
			line := run(l, e, br)
			lines[i] = line
			if line == nil {
				continue
			}
			if !want {
				t.Fatalf("level %d %s: beam %+v wins a level the oracle finds unsolvable", k, l.Canonical(), br)
			}
			if o, err := replay(l, line); err != nil || !o.Won {
				t.Fatalf("level %d %s: beam %+v line does not win: %v %+v", k, l.Canonical(), br, err, o)
			}
			wins[i]++
		}
		if again := run(l, e, aimed); fmt.Sprint(again) != fmt.Sprint(lines[1]) {
			t.Fatalf("level %d %s: the beam gave %v, then %v", k, l.Canonical(), lines[1], again)
		}
		if fmt.Sprint(lines[0]) != fmt.Sprint(lines[1]) {
			differ++
		}
	}
	t.Logf("%d levels with a table: wins without the weight %d, with it %d; lines differ on %d", levels, wins[0], wins[1], differ)
	if wins[1] == 0 || differ < 10 {
		t.Fatalf("the weight never mattered: wins %v, lines differ on %d of %d levels", wins, differ, levels)
	}
}

// TestWideBeamsInSchedule runs schedules with the wide beams for levels
// whose beams die early (schedule.openingBeams as the helper has them,
// farBeams after farAt nodes of the exact pass as the own search) on
// random small levels: the oracle's verdicts, every plan replayed, the
// wide beams winning some levels, and each third of those interrupted at
// random nodes and resumed to the same result (resumes before, at and
// after farAt must run the far beams as the uninterrupted search did).
// With openingBelow 0 they never run.
func TestWideBeamsInSchedule(t *testing.T) {
	t.Parallel()
	narrow := []beamRun{{width: 1, dig: 600}, {width: 1, dig: 100}}
	wide := []beamRun{{width: 8, dig: 10}}
	for _, tc := range []struct {
		name  string
		sched schedule
	}{
		{"helper: after the first beam", schedule{first: 4, beams: narrow, retro: retroPlan{nodes: 6, maxLayer: 1 << 10, keep: true},
			retroDeep: retroPlan{nodes: 60, maxLayer: 1 << 10, keep: true}, tableFirst: true, lateBeams: 50, exactRuns: 8,
			openingBeams: wide, openingBelow: 50}},
		{"own: after the retrograde proofs", schedule{first: 4, restart: 20, restarts: 2, restartNear: 80, beams: narrow,
			retro: retroPlan{nodes: 6, maxLayer: 1 << 10, afterBeams: 1, keep: true}, retroFar: retroPlan{nodes: 20, maxLayer: 1 << 10},
			farBeams: wide, farAt: 3, openingBelow: 50}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(36, 17))
			off := tc.sched
			off.openingBelow = 0
			ran, won, resumes := 0, 0, 0
			for k := range 1500 {
				l := mustParse(t, smallLevel(rng))
				full := solveAgainstOracle(t, k, l, tc.sched)
				if precheckFail(l) != "" {
					continue
				}
				s := solvedSearch(l, tc.sched)
				if s.signals.openingRan || s.signals.farRan {
					ran++
				}
				if s.signals.openingWon || s.signals.farWon {
					won++
					if won%3 == 0 {
						resumeAtRandom(t, k, l, tc.sched, full, rng, 4)
						resumes += 4
					}
				}
				if s := solvedSearch(l, off); s.signals.openingRan || s.signals.farRan {
					t.Fatalf("level %d: the wide beams ran with openingBelow 0", k)
				}
			}
			t.Logf("wide beams ran on %d levels, won %d; %d resumes", ran, won, resumes)
			if won < 10 || ran <= won {
				t.Fatalf("wide beams ran on %d levels and won %d", ran, won)
			}
		})
	}
}
