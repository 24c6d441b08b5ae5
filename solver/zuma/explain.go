package zuma

import (
	"fmt"
	"strings"

	"github.com/puzzled/puzzled/solver"
)

// Explain implements solver.Explainer: for a hand that cannot empty the
// board, the colors it is short of by counting (the board's k balls of a
// color vanish in groups of 3 or 4, so the hand must bring 2 more for
// k = 1 and 1 more for k = 2 or 5), or else that every order was tried;
// for an unknown result, the budget.
func (kind) Explain(lvl solver.Level, res solver.Result, budget solver.Budget) solver.Explanation {
	l, ok := lvl.(*Level)
	if !ok {
		return solver.Explanation{Summary: "not a zuma level"}
	}
	switch res.Verdict {
	case solver.Unknown:
		e := solver.Explanation{Summary: fmt.Sprintf("Not decided: the search stopped at its budget (%s) before it finished.", solver.BudgetText(budget, res.Stats)),
			Facts: []string{"Solve again with more time to know."}}
		if n := planLen(res); n > 0 {
			step := n
			e.Step = &step
			e.Facts = append([]string{fmt.Sprintf("The best line found so far has %d shots.", n)}, e.Facts...)
		}
		return e
	case solver.Solved:
		return solver.Explanation{Summary: "The board can be emptied."}
	}
	var board, hand [26]int
	for i := 0; i < len(l.Board); i++ {
		board[l.Board[i]-'A']++
	}
	for i := 0; i < len(l.Hand); i++ {
		hand[l.Hand[i]-'A']++
	}
	e := solver.Explanation{Counts: map[string]int{}}
	var short []string
	need, total := 0, 0
	for c := range board {
		total += hand[c]
		more := 0
		switch board[c] {
		case 1:
			more = 2
		case 2, 5:
			more = 1
		}
		need += more
		if more > hand[c] {
			name := string(rune('A' + c))
			e.Counts[name] = board[c]
			e.Marks = append(e.Marks, name)
			short = append(short, fmt.Sprintf("%s: the board has %d, so the hand must bring at least %d more, and it has %d", name, board[c], more, hand[c]))
		}
	}
	switch {
	case len(short) > 0:
		e.Summary = "The hand is short of balls: a run vanishes only at 3 balls. " + strings.Join(short, "; ") + "."
	case need > total:
		e.Summary = fmt.Sprintf("The hand is short of balls: the board's colors need at least %d more balls to make every run 3 long, and the hand has %d.", need, total)
	default:
		e.Summary = fmt.Sprintf("No order of the hand's %d balls empties the board: every insertion of every ball was tried (%d nodes).", len(l.Hand), res.Stats.Nodes)
	}
	return e
}

func planLen(res solver.Result) int {
	return solver.PlanLen(res.Plan)
}
