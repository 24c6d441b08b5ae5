package columns

import "testing"

// TestThreats counts, on hand-made boards, the empty reachable cells
// where one jewel completes a match.
func TestThreats(t *testing.T) {
	cases := []struct {
		name, rule string
		rows       []string
		want       int64
	}{
		{"lines pair, open end", RuleLines, []string{".....", ".....", ".....", ".....", "AA..."}, 1},
		{"lines gap", RuleLines, []string{".....", ".....", ".....", ".....", "A.A.."}, 1},
		{"lines vertical pair", RuleLines, []string{".....", ".....", ".....", "A....", "A...."}, 1},
		{"lines dead column", RuleLines, []string{".....", ".....", "A....", "A....", "B...."}, 0},
		{"lines diagonal pair, open end", RuleLines, []string{".....", ".....", ".....", ".B...", "BA..."}, 1},
		{"lines pair, blocked", RuleLines, []string{".....", ".....", ".....", ".....", "AAB.."}, 0},
		{"groups pair", RuleGroups, []string{".....", ".....", ".....", ".....", "AA..."}, 4},
		{"groups split", RuleGroups, []string{".....", ".....", ".....", ".....", "A.A.."}, 2},
		{"groups single", RuleGroups, []string{".....", ".....", ".....", ".....", "A...."}, 0},
	}
	for _, tc := range cases {
		l := mustParse(t, levelJSONOf(tc.rule, tc.rows, []string{"ABC"}, `{"type":"survive"}`))
		e := newEvaluator(l, EvalTuned, false)
		_, paired := e.pairs(&l.start)
		if got := e.threats(&l.start, &paired); got != tc.want {
			t.Errorf("%s: %d threats, want %d", tc.name, got, tc.want)
		}
	}
}

// TestClassicEvalIgnoresNewTerms: the classic weights give no weight to
// threats, dead columns, bumpiness, the horizon or chain potential, so the
// baseline is columns/1's evaluation.
func TestClassicEvalIgnoresNewTerms(t *testing.T) {
	for _, goal := range allGoals {
		w := classicWeights(goal)
		if w.threat != 0 || w.dead != 0 || w.bump != 0 || w.horizon != 0 || w.chain != 0 {
			t.Fatalf("%s: classic weights %+v", goal, w)
		}
	}
}

// TestChainPotential: the chain term is the most points one jewel dropped
// on a column sets off, cascades included.
func TestChainPotential(t *testing.T) {
	cases := []struct {
		name, rule string
		rows       []string
		want       int64
	}{
		// A at column 0 clears AAA; the Bs above fall beside the B at
		// column 3: 3 + 2·3.
		{"lines cascade", RuleLines, []string{".....", ".....", ".....", ".BB..", ".AAB."}, 9},
		{"lines one match", RuleLines, []string{".....", ".....", ".....", ".....", "AA..."}, 3},
		{"lines nothing", RuleLines, []string{".....", ".....", ".....", ".....", "AB..."}, 0},
		// A beside the AA pair clears it; column 2's B falls next to the
		// BB pair: 3 + 2·3.
		{"groups cascade", RuleGroups, []string{".....", ".....", "..B..", "..C..", ".AABB"}, 9},
		{"groups one match", RuleGroups, []string{".....", ".....", ".....", ".....", ".AA.."}, 3},
	}
	for _, tc := range cases {
		l := mustParse(t, levelJSONOf(tc.rule, tc.rows, []string{"ABC"}, `{"type":"survive"}`))
		e := newEvaluator(l, EvalTuned, false)
		_, paired := e.pairs(&l.start)
		before := l.start
		if got := e.chainPotential(&l.start, &paired); got != tc.want {
			t.Errorf("%s: chain potential %d, want %d", tc.name, got, tc.want)
		}
		if l.start != before {
			t.Errorf("%s: chainPotential changed the board", tc.name)
		}
	}
}
