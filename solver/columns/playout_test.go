package columns

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/difficulty"
)

// rateLevel parses an empty w×h lines board with pieces and goal, solves
// it and rates it.
func rateLevel(t *testing.T, w, h int, goal string, opts difficulty.Options, pieces ...string) (solver.Result, difficulty.Figures) {
	t.Helper()
	rows := make([]string, h)
	for i := range rows {
		rows[i] = `"` + strings.Repeat(".", w) + `"`
	}
	data := fmt.Sprintf(`{"kind":"columns","width":%d,"height":%d,"rule":"lines","board":[%s],"pieces":["%s"],"goal":%s}`,
		w, h, strings.Join(rows, ","), strings.Join(pieces, `","`), goal)
	l, err := Parse([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	k := New().(*kind)
	res, err := k.Solve(context.Background(), l, solver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := k.Rate(context.Background(), l, res, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res, f
}

func TestRateUnsolvableNeverWins(t *testing.T) {
	t.Parallel()
	// Three different jewels on an empty board never match.
	res, f := rateLevel(t, 3, 6, `{"type":"clear"}`, difficulty.Options{Playouts: 300}, "RGB")
	if res.Verdict != solver.Unsolvable {
		t.Fatalf("verdict %s", res.Verdict)
	}
	if f.Random.Wins != 0 || f.Greedy.Wins != 0 || f.First.Winning != 0 || f.Score != nil {
		t.Fatalf("figures %+v: want no win", f)
	}
}

func TestRateEveryMoveWins(t *testing.T) {
	t.Parallel()
	// RRR vanishes wherever it lands.
	res, f := rateLevel(t, 4, 6, `{"type":"clear"}`, difficulty.Options{Playouts: 300}, "RRR", "GGB")
	if res.Verdict != solver.Solved {
		t.Fatalf("verdict %s", res.Verdict)
	}
	if f.Random.Rate != 1 || f.Greedy.Rate != 1 || f.First.Share != 1 || *f.Score != 1 || *f.Shortest != 1 {
		t.Fatalf("figures %+v", f)
	}
}

func TestRateSameSeedSameFigures(t *testing.T) {
	t.Parallel()
	run := func(workers int) difficulty.Figures {
		_, f := rateLevel(t, 4, 6, `{"type":"score","score":6}`, difficulty.Options{Playouts: 400, Seed: 5, Workers: workers},
			"RGB", "GBR", "BRG", "RGB")
		return f
	}
	a, b := run(1), run(4)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("same seed, different figures:\n%+v\n%+v", a, b)
	}
	if a.Random.Wins == 0 || a.Random.Wins == 400 {
		t.Fatalf("random wins %d: want a level neither trivial nor impossible", a.Random.Wins)
	}
}

// TestRateHigherGoalIsHarder asks more points of the same boards and
// pieces (6×12, 12 pieces, 5 colors) step by step, 3 to 6 points a piece:
// the median score must never fall, and the last step must score above
// the first. (A playout reaching the higher goal passed the lower one on
// the same draws, so every player's win rate can only fall.)
func TestRateHigherGoalIsHarder(t *testing.T) {
	t.Parallel()
	k := New().(*kind)
	prev, first := 0, 0
	for _, perPiece := range []int64{3, 4, 5, 6} {
		var scores []int
		for i := range 3 {
			l, err := Generate(rand.New(rand.NewPCG(uint64(i), 33)), GenConfig{Width: 6, Height: 12, Rule: RuleLines,
				Colors: 5, Fill: 0.3, Pieces: 12, Goal: GoalScore, Score: perPiece * 12})
			if err != nil {
				t.Fatal(err)
			}
			res, err := k.Solve(context.Background(), l, solver.Options{Budget: solver.Budget{MaxMS: 10_000}})
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict != solver.Solved {
				t.Fatalf("%d points a piece, level %d: %s", perPiece, i, res.Verdict)
			}
			f, err := k.Rate(context.Background(), l, res, difficulty.Options{Playouts: 200})
			if err != nil {
				t.Fatal(err)
			}
			scores = append(scores, *f.Score)
		}
		slices.Sort(scores)
		med := scores[1]
		t.Logf("%d points a piece: scores %v", perPiece, scores)
		if med < prev {
			t.Fatalf("%d points a piece: median score %d below %d", perPiece, med, prev)
		}
		if first == 0 {
			first = med
		}
		prev = med
	}
	if prev <= first {
		t.Fatalf("median score went from %d to %d: the family did not get harder", first, prev)
	}
}

// TestRateAgreesWithTheSolver: on random small levels no playout wins a
// level the solver proved unsolvable, and the exact search finds a winning
// first move exactly when the solver found a plan.
func TestRateAgreesWithTheSolver(t *testing.T) {
	t.Parallel()
	verdicts := map[solver.Verdict]int{}
	rng := rand.New(rand.NewPCG(18, 3))
	goals := []string{GoalClear, GoalScore, GoalTarget, GoalSurvive}
	for i := range 60 {
		l, err := Generate(rng, GenConfig{Width: 3 + rng.IntN(2), Height: 6, Rule: RuleLines, Colors: 3,
			Fill: 0.3, Pieces: 1 + rng.IntN(3), Goal: goals[i%4]})
		if err != nil {
			t.Fatal(err)
		}
		k := New().(*kind)
		res, err := k.Solve(context.Background(), l, solver.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Verdict.Definitive() {
			continue
		}
		f, err := k.Rate(context.Background(), l, res, difficulty.Options{Playouts: 100})
		if err != nil {
			t.Fatal(err)
		}
		solved := res.Verdict == solver.Solved
		verdicts[res.Verdict]++
		if !solved && (f.Random.Wins > 0 || f.Greedy.Wins > 0) {
			t.Fatalf("%s: unsolvable but playouts won", l.Canonical())
		}
		if f.First == nil || (f.First.Winning > 0) != solved {
			t.Fatalf("%s: verdict %s, first moves %+v", l.Canonical(), res.Verdict, f.First)
		}
	}
	if verdicts[solver.Solved] == 0 || verdicts[solver.Unsolvable] == 0 {
		t.Fatalf("verdicts %v: the levels must include both", verdicts)
	}
}
