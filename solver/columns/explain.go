package columns

import (
	"fmt"
	"sort"
	"strings"

	"github.com/puzzled/puzzled/solver"
)

// Explain implements solver.Explainer: for a color-count precheck, the
// colors that cannot gather three jewels; for the score bound, the bound;
// for an exhausted search, that every placement was tried and the best
// line's score; for an unknown result, the budget and the best line.
func (k *kind) Explain(lvl solver.Level, res solver.Result, budget solver.Budget) solver.Explanation {
	l, ok := lvl.(*Level)
	if !ok {
		return solver.Explanation{Summary: ErrWrongLevel.Error()}
	}
	n := solver.PlanLen(res.Plan)
	step := n
	var score int64
	if res.Value != nil {
		score = *res.Value
	}
	best := fmt.Sprintf("The best line found places %d of %d pieces and scores %d.", n, len(l.Pieces), score)
	switch {
	case res.Verdict == solver.Unknown:
		return solver.Explanation{
			Summary: fmt.Sprintf("Not decided: the search stopped at its budget (%s) before it reached the goal (%s) or proved it out of reach.",
				solver.BudgetText(budget, res.Stats), goalText(l)),
			Facts: []string{best, "Solve again with more time to know."},
			Step:  &step,
		}
	case res.Verdict == solver.Solved:
		return solver.Explanation{Summary: "The goal can be reached."}
	case res.Proof == "precheck:color-count":
		return colorCountExplanation(l)
	case res.Proof == "precheck:score-bound":
		bc := l.geom.boardCounts(&l.start)
		rem := remainingCounts(l)[0]
		return solver.Explanation{Summary: fmt.Sprintf(
			"The goal asks for %d points, but even if every color with 3 or more jewels (on the board and in the pieces) vanished in the longest possible chain, the score would be at most %d.",
			l.Goal.Score, scoreBound(&bc, &rem))}
	}
	return solver.Explanation{
		Summary: fmt.Sprintf("No placement of the pieces reaches the goal (%s): every column and rotation of every piece was tried (%d nodes).", goalText(l), res.Stats.Nodes),
		Facts:   []string{best},
		Step:    &step,
	}
}

// colorCountExplanation names the colors that cannot gather 3 jewels.
func colorCountExplanation(l *Level) solver.Explanation {
	counts := map[byte]int{}
	for _, row := range l.Board {
		for i := 0; i < len(row); i++ {
			if row[i] != '.' {
				counts[row[i]]++
			}
		}
	}
	onBoard := map[byte]bool{}
	for c := range counts {
		onBoard[c] = true
	}
	for _, p := range l.Pieces {
		for i := 0; i < len(p); i++ {
			counts[p[i]]++
		}
	}
	e := solver.Explanation{Counts: map[string]int{}}
	var off []string
	for c, n := range counts {
		relevant := onBoard[c]
		if l.Goal.Type == GoalTarget {
			relevant = c == l.Board[l.Goal.Row][l.Goal.Col]
		}
		if relevant && n < 3 {
			e.Counts[string(c)] = n
			e.Marks = append(e.Marks, string(c))
			off = append(off, fmt.Sprintf("%c has %d", c, n))
		}
	}
	sort.Strings(off)
	sort.Strings(e.Marks)
	what := "the board cannot be emptied"
	if l.Goal.Type == GoalTarget {
		what = "the target jewel cannot vanish"
	}
	e.Summary = "Jewels vanish in lines of 3 or more, so " + what + ": counting the board and every piece, " + strings.Join(off, ", ") + "."
	return e
}

func goalText(l *Level) string {
	switch l.Goal.Type {
	case GoalScore:
		return fmt.Sprintf("%d points", l.Goal.Score)
	case GoalTarget:
		return fmt.Sprintf("remove the jewel at row %d, column %d", l.Goal.Row, l.Goal.Col)
	case GoalClear:
		return "empty the well"
	}
	return "place every piece"
}
