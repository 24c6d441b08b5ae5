package columns

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/puzzled/puzzled/solver"
)

// TestPositionAgreesWithOracle plays random fitting prefixes of random
// small levels (fixed seed, every goal) and checks the position against
// the oracle run from the same state: the position's level is solvable
// exactly when the oracle reaches the goal from there; its moves are the
// placements that fit; a continuation replays from the start.
func TestPositionAgreesWithOracle(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 32))
	k := New()
	counts := map[string]int{}
	for n := range 600 {
		base := smallLevel(t, rng, allRules[n%2])
		goal := allGoals[n%4]
		l := base
		if goal != GoalTarget {
			l = withGoal(t, base, goal, 1+rng.Int64N(12))
		}
		s, score := oracleStart(l), 0
		var prefix []Move
		for i := range rng.IntN(len(l.Pieces)) {
			col, rot := rng.IntN(l.Width), rng.IntN(3)
			next, pts, ok := oracleDrop(s, l.Rule, l.Pieces[i], col, rot)
			if !ok {
				break
			}
			s, score = next, score+pts
			prefix = append(prefix, Move{Col: col, Rot: rot})
		}
		plan, _ := json.Marshal(prefix)
		p, err := k.(*kind).Position(l, plan)
		if err != nil {
			t.Fatalf("level %d %s after %s: %v", n, l.Canonical(), plan, err)
		}
		if p.Over {
			counts["over"]++
			continue
		}
		fits := 0
		for col := 0; col < l.Width; col++ {
			for rot := 0; rot < 3; rot++ {
				if _, _, ok := oracleDrop(s, l.Rule, l.Pieces[len(prefix)], col, rot); ok {
					fits++
				}
			}
		}
		if fits != len(p.Moves) {
			t.Fatalf("level %d: %d moves, %d fit", n, len(p.Moves), fits)
		}
		var a oracleAnswer
		oracleRec(l, s, len(prefix), score, &a)
		want := map[string]bool{GoalClear: a.clear, GoalTarget: a.target, GoalSurvive: a.survive,
			GoalScore: int64(a.best) >= l.Goal.Score}[goal]
		pl := p.Level.(*Level)
		res, err := k.Solve(context.Background(), pl, solver.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := k.Verify(pl, res); err != nil {
			t.Fatal(err)
		}
		if (res.Verdict == solver.Solved) != want || res.Verdict == solver.Unknown {
			t.Fatalf("level %d %s after %s: position %s (%s), oracle %t", n, l.Canonical(), plan, res.Verdict, pl.Canonical(), want)
		}
		counts[goal+" "+string(res.Verdict)]++
		line, _ := solver.JoinPlans(plan, res.Plan)
		moves, _ := ParsePlan(line)
		if _, err := Replay(l, moves); err != nil {
			t.Fatalf("level %d: prefix + continuation: %v", n, err)
		}
	}
	t.Logf("positions: %v", counts)
	for _, goal := range allGoals {
		if counts[goal+" solved"] < 5 || counts[goal+" unsolvable"] < 5 {
			t.Fatalf("random positions do not cover %s: %v", goal, counts)
		}
	}
}
