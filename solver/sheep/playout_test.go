package sheep

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/difficulty"
)

// rate solves and rates level data with the given options.
func rate(t *testing.T, data string, opts difficulty.Options) (solver.Result, difficulty.Figures) {
	t.Helper()
	l, err := Parse([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Solve(context.Background(), l, solver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := kind{}.Rate(context.Background(), l, res, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res, f
}

// pileLevel stacks the given types bottom to top as one pile per string
// (each a column of tiles, only the top clickable), with slots slots.
func pileLevel(slots int, piles ...string) string {
	var tiles []string
	for p, pile := range piles {
		for i, c := range pile {
			tiles = append(tiles, fmt.Sprintf(`{"id":"p%d-%02d","type":%d,"x":%d,"y":0,"layer":%d}`, p, i, c-'0', p*16, i))
		}
	}
	return fmt.Sprintf(`{"kind":"sheep","slots":%d,"tile_size":8,"tiles":[%s]}`, slots, strings.Join(tiles, ","))
}

func TestRateUnsolvableLevelNeverWins(t *testing.T) {
	t.Parallel()
	// Two piles 1 2 / 2 1 (bottom first), then a third 1 and 2 on their
	// own: with 3 slots the tray fills before any triple is possible.
	res, f := rate(t, pileLevel(3, "12", "21", "1", "2"), difficulty.Options{Playouts: 300})
	if res.Verdict != solver.Unsolvable {
		t.Fatalf("verdict %s, want unsolvable", res.Verdict)
	}
	if f.Random.Wins != 0 || f.Greedy.Wins != 0 || f.Score != nil {
		t.Fatalf("random %d greedy %d score %v: want 0, 0, none", f.Random.Wins, f.Greedy.Wins, f.Score)
	}
}

func TestRateEveryMoveWins(t *testing.T) {
	t.Parallel()
	// Six tiles of one type and 7 slots: the tray never holds more than 2.
	res, f := rate(t, pileLevel(7, "111", "111"), difficulty.Options{Playouts: 300})
	if res.Verdict != solver.Solved {
		t.Fatalf("verdict %s", res.Verdict)
	}
	if f.Random.Rate != 1 || f.Greedy.Rate != 1 || f.First.Share != 1 || *f.Score != 1 {
		t.Fatalf("random %v greedy %v first %v score %d: want 1, 1, 1, 1", f.Random.Rate, f.Greedy.Rate, f.First.Share, *f.Score)
	}
	if *f.Shortest != 6 || *f.Median != 6 {
		t.Fatalf("shortest %d median %v, want 6", *f.Shortest, *f.Median)
	}
}

func TestRateSameSeedSameFigures(t *testing.T) {
	t.Parallel()
	lvl := pileLevel(5, "123", "231", "312", "123")
	_, a := rate(t, lvl, difficulty.Options{Playouts: 400, Seed: 3, Workers: 4})
	_, b := rate(t, lvl, difficulty.Options{Playouts: 400, Seed: 3, Workers: 1})
	if fmt.Sprintf("%+v %+v %+v", *a.Random, *a.Greedy, a.Plies) != fmt.Sprintf("%+v %+v %+v", *b.Random, *b.Greedy, b.Plies) {
		t.Fatalf("same seed, different figures:\n%+v %+v\n%+v %+v", *a.Random, *a.Greedy, *b.Random, *b.Greedy)
	}
}

// TestRateFewerSlotsIsHarder deals one set of piles with 7 slots down to
// 3: the score must never fall, and the ends must differ.
func TestRateFewerSlotsIsHarder(t *testing.T) {
	t.Parallel()
	piles := []string{"1234", "2341", "3412", "4123", "1234", "2341"}
	prev, first := 0, 0
	for slots := 7; slots >= 3; slots-- {
		res, f := rate(t, pileLevel(slots, piles...), difficulty.Options{Playouts: 1000})
		if res.Verdict != solver.Solved {
			t.Logf("slots %d: %s, random %d greedy %d", slots, res.Verdict, f.Random.Wins, f.Greedy.Wins)
			break
		}
		s := *f.Score
		t.Logf("slots %d: score %d, random %.3f greedy %.3f first %d/%d", slots, s, f.Random.Rate, f.Greedy.Rate, f.First.Winning, f.First.Moves)
		if s < prev {
			t.Fatalf("slots %d: score %d, below %d with one slot more", slots, s, prev)
		}
		if first == 0 {
			first = s
		}
		prev = s
	}
	if prev <= first {
		t.Fatalf("score went from %d to %d: the family did not get harder", first, prev)
	}
}

// TestRateAgreesWithTheSolver plays random small levels: no playout may
// win a level the solver proved unsolvable, and the exact search of the
// figures must find a winning first move exactly when the solver solved
// it (a cross-check of the playout rules against the solver's).
func TestRateAgreesWithTheSolver(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(18, 1))
	checked := 0
	for range 150 {
		data := smallLevel(rng)
		l, err := Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Solve(context.Background(), l, solver.Options{})
		if err != nil {
			t.Fatal(err)
		}
		f, err := kind{}.Rate(context.Background(), l, res, difficulty.Options{Playouts: 100})
		if err != nil {
			t.Fatal(err)
		}
		solved := res.Verdict == solver.Solved
		if !solved && (f.Random.Wins > 0 || f.Greedy.Wins > 0) {
			t.Fatalf("%s: unsolvable but playouts won (%d, %d)", data, f.Random.Wins, f.Greedy.Wins)
		}
		if f.First != nil {
			checked++
			if (f.First.Winning > 0) != solved {
				t.Fatalf("%s: verdict %s, exact search: %d winning first moves", data, res.Verdict, f.First.Winning)
			}
		}
	}
	if checked < 100 {
		t.Fatalf("exact search finished on %d of 150 levels only", checked)
	}
}
