package columns

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/puzzled/puzzled/solver"
)

var (
	allRules = []string{RuleLines, RuleGroups}
	allGoals = []string{GoalClear, GoalScore, GoalTarget, GoalSurvive}
)

// smallLevel is a random level the oracle can enumerate: 1–5 pieces on a
// board of height 3–5 and width 3–4 (3 for 5 pieces), with a target goal.
func smallLevel(t testing.TB, rng *rand.Rand, rule string) *Level {
	t.Helper()
	pieces := 1 + rng.IntN(5)
	width := 3 + rng.IntN(2)
	if pieces == 5 {
		width = 3
	}
	cfg := GenConfig{
		Width: width, Height: 3 + rng.IntN(3), Rule: rule,
		Colors: 2 + rng.IntN(3), Fill: 0.2 + 0.4*rng.Float64(),
		Pieces: pieces, Goal: GoalTarget,
	}
	l, err := Generate(rng, cfg)
	if err != nil {
		t.Fatalf("generate %+v: %v", cfg, err)
	}
	return l
}

// withGoal is l with another goal.
func withGoal(t testing.TB, l *Level, goal string, score int64) *Level {
	t.Helper()
	g := `{"type":"` + goal + `"}`
	if goal == GoalScore {
		g = `{"type":"score","score":` + itoa(int(score)) + `}`
	}
	return mustParse(t, levelJSONOf(l.Rule, l.Board, l.Pieces, g))
}

// TestSolveAgainstOracle runs 3,000 random small levels per rule through
// the oracle and, with each of the four goals, through the solver (exact
// search): same verdicts, the same best score for score goals, and every
// result verifies. One oracle run answers all goals of a board.
func TestSolveAgainstOracle(t *testing.T) {
	const levels = 3000
	k := New()
	for ri, rule := range allRules {
		t.Run(rule, func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(uint64(ri), 99))
			counts := map[string]int{}
			for n := range levels {
				base := smallLevel(t, rng, rule)
				a := oracleSolve(base)
				score := 1 + rng.Int64N(15)
				for _, goal := range allGoals {
					l := base
					if goal != GoalTarget {
						l = withGoal(t, base, goal, score)
					}
					want := map[string]bool{GoalClear: a.clear, GoalTarget: a.target,
						GoalSurvive: a.survive, GoalScore: int64(a.best) >= score}[goal]
					checkAgainstOracle(t, k, l, n, want, a.best)
					counts[goal+"/"+map[bool]string{true: "solved", false: "unsolvable"}[want]]++
				}
			}
			for _, goal := range allGoals {
				if counts[goal+"/solved"] < levels/100 || counts[goal+"/unsolvable"] < levels/100 {
					t.Fatalf("degenerate sample: %v", counts)
				}
			}
			t.Logf("%v", counts)
		})
	}
}

func checkAgainstOracle(t *testing.T, k solver.Kind, l *Level, n int, reach bool, best int) {
	t.Helper()
	res, err := k.Solve(context.Background(), l, solver.Options{})
	if err != nil {
		t.Fatalf("level %d %s: %v", n, l.Canonical(), err)
	}
	if err := k.Verify(l, res); err != nil {
		t.Fatalf("level %d %s: verify: %v", n, l.Canonical(), err)
	}
	want := solver.Unsolvable
	if reach {
		want = solver.Solved
	}
	if res.Verdict != want || res.Details["search"] != searchExact {
		t.Fatalf("level %d %s: verdict %s by %v, oracle %s", n, l.Canonical(), res.Verdict, res.Details["search"], want)
	}
	if l.Goal.Type == GoalScore && (*res.Value != int64(best) || !res.Optimal) {
		t.Fatalf("level %d %s: best score %d (optimal %v), oracle %d", n, l.Canonical(), *res.Value, res.Optimal, best)
	}
	if *res.Value > int64(best) {
		t.Fatalf("level %d %s: value %d above the oracle's best %d", n, l.Canonical(), *res.Value, best)
	}
}

// TestSimulatorAgainstOracle plays 400 random games per rule on 6×13
// boards with random moves and compares every placement with the oracle's
// simulator: points, board and target.
func TestSimulatorAgainstOracle(t *testing.T) {
	for ri, rule := range allRules {
		t.Run(rule, func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(7, uint64(ri)))
			chains := 0
			for n := range 400 {
				l, err := Generate(rng, GenConfig{Width: 6, Height: 13, Rule: rule,
					Colors: 3 + rng.IntN(4), Fill: 0.5, Pieces: 40, Goal: GoalTarget})
				if err != nil {
					t.Fatal(err)
				}
				chains += compareGame(t, rng, l, n)
			}
			if chains == 0 {
				t.Fatal("no chain of 2+ steps in the sample")
			}
		})
	}
}

// compareGame plays one random game; it returns the number of placements
// that scored more than their jewel count (chains of 2+ steps).
func compareGame(t *testing.T, rng *rand.Rand, l *Level, n int) int {
	t.Helper()
	os := oracleStart(l)
	b, tg := l.start, l.initialTarget()
	chains := 0
	for i, p := range l.Pieces {
		col, rot := rng.IntN(l.Width), rng.IntN(3)
		next, want, okWant := oracleDrop(os, l.Rule, p, col, rot)
		before := l.geom.boardCounts(&b)
		got, ok := l.geom.place(&b, col, rot, &l.pieces[i], &tg)
		if ok != okWant || got != want {
			t.Fatalf("game %d piece %d (%d,%d): got %d,%v, oracle %d,%v\n%s", n, i, col, rot, got, ok, want, okWant, strings.Join(rowsFromBoard(&b, l.Width, l.Height), "\n"))
		}
		if !ok {
			return chains
		}
		after := l.geom.boardCounts(&b)
		removed := 3
		for v := range before {
			removed += int(before[v] - after[v])
		}
		if got > removed {
			chains++
		}
		os = next
		rows := rowsFromBoard(&b, l.Width, l.Height)
		for r := range rows {
			if rows[r] != string(os.grid[r]) {
				t.Fatalf("game %d piece %d: board row %d %q, oracle %q", n, i, r, rows[r], os.grid[r])
			}
		}
		if tg.hit() == os.hasTarget() {
			t.Fatalf("game %d piece %d: target hit %v, oracle has target %v", n, i, tg.hit(), os.hasTarget())
		}
		if !tg.hit() && os.target != [2]int{l.Height - 1 - int(tg.r), int(tg.c)} {
			t.Fatalf("game %d piece %d: target at %v, not where the oracle has it", n, i, tg)
		}
	}
	return chains
}

func ExampleReplay() {
	l, _ := Parse([]byte(`{"kind":"columns","width":3,"height":4,"rule":"lines",
		"board":["...","...","...","AB."],"pieces":["CAB"],"goal":{"type":"clear"}}`))
	out, err := Replay(l, []Move{{Col: 2, Rot: 0}})
	fmt.Println(out.Score, out.GoalMet, err)
	fmt.Println(strings.Join(out.Board, "\n"))
	// Output:
	// 0 false <nil>
	// ...
	// ..C
	// ..A
	// ABB
}
