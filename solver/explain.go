package solver

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Explanation says, in words a level designer understands, why a result
// is what it is: why a level cannot be won, or how far a search got
// before its budget ran out.
type Explanation struct {
	// Summary is one sentence.
	Summary string `json:"summary"`
	// Facts are further sentences: the counts that are off, what was
	// searched, the budget.
	Facts []string `json:"facts,omitempty"`
	// Step, when set, is the state of the result's plan (its best partial
	// line) to show: the deepest position a line reaches.
	Step *int `json:"step,omitempty"`
	// Marks names what to highlight on the board at Step: tile ids
	// (sheep), ball colors (zuma), jewel colors (columns).
	Marks []string `json:"marks,omitempty"`
	// Line, when set, is a line of play (in the plan's format) that leads
	// to the position the explanation is about, when that is not on the
	// result's plan: sheep's longest line before the tray must fill.
	Line json.RawMessage `json:"line,omitempty"`
	// Counts, when the reason is a count, are the counts per type or color
	// that are off: the name (a tile type's number, a color letter) → how
	// many there are.
	Counts map[string]int `json:"counts,omitempty"`
}

// Explainer is a kind that can explain its results that are not solved
// (unsolvable, unknown). Explain gets the budget the solve had, for the
// sentence about an unknown result.
type Explainer interface {
	Explain(lvl Level, res Result, budget Budget) Explanation
}

// Warning is something about a level that is legal but probably not what
// its designer meant (two tiles on one layer overlapping), or that decides
// the result before any search (a type count that is not a multiple of 3).
type Warning struct {
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
	// Marks names what the warning is about on the board (tile ids, colors).
	Marks []string `json:"marks,omitempty"`
}

// Linter is a kind that can warn about a parsed level.
type Linter interface {
	Lint(lvl Level) []Warning
}

// BudgetText says, for an explanation, what budget a solve had and what it
// used: "2000 ms; 2004 ms and 81234 nodes used".
func BudgetText(b Budget, st Stats) string {
	var parts []string
	if b.MaxMS > 0 {
		parts = append(parts, fmt.Sprintf("%d ms", b.MaxMS))
	}
	if b.MaxNodes > 0 {
		parts = append(parts, fmt.Sprintf("%d nodes", b.MaxNodes))
	}
	used := fmt.Sprintf("%d ms and %d nodes used", st.ElapsedMS, st.Nodes)
	if len(parts) == 0 {
		return used
	}
	return strings.Join(parts, " or ") + "; " + used
}
