package columns

import (
	"encoding/json"
)

// Match rules.
const (
	RuleLines  = "lines"  // runs of 3+ in a row, column or diagonal
	RuleGroups = "groups" // 8-connected groups of 3+
)

// Goal types.
const (
	GoalClear   = "clear"
	GoalScore   = "score"
	GoalTarget  = "target"
	GoalSurvive = "survive"
)

// Goal is what a level asks for.
type Goal struct {
	Type  string // GoalClear, GoalScore, GoalTarget or GoalSurvive
	Score int64  // GoalScore: total to reach
	Row   int    // GoalTarget: row of the jewel (0 = top row)
	Col   int    // GoalTarget: column of the jewel
}

// Level is a parsed, validated columns level. Treat it as read-only.
type Level struct {
	Width  int
	Height int
	Rule   string
	Board  []string // Height rows, top row first
	Pieces []string // each 3 jewels, top to bottom
	Goal   Goal

	canonical []byte
	start     board     // Board in simulator form
	pieces    [][3]byte // jewel codes top to bottom
	geom      geom
}

// Kind implements solver.Level.
func (l *Level) Kind() string { return Name }

// Canonical implements solver.Level: compact JSON with "kind" first.
func (l *Level) Canonical() []byte { return l.canonical }

type goalJSON struct {
	Type  string  `json:"type"`
	Score *int64  `json:"score,omitempty"`
	Cell  *[2]int `json:"cell,omitempty"`
}

type levelJSON struct {
	Kind   string    `json:"kind"`
	Width  int       `json:"width"`
	Height int       `json:"height"`
	Rule   string    `json:"rule"`
	Board  []string  `json:"board"`
	Pieces []string  `json:"pieces"`
	Goal   *goalJSON `json:"goal"`
}

func (l *Level) buildCanonical() {
	g := &goalJSON{Type: l.Goal.Type}
	switch l.Goal.Type {
	case GoalScore:
		g.Score = &l.Goal.Score
	case GoalTarget:
		g.Cell = &[2]int{l.Goal.Row, l.Goal.Col}
	}
	out, err := json.Marshal(levelJSON{
		Kind: Name, Width: l.Width, Height: l.Height, Rule: l.Rule,
		Board: l.Board, Pieces: l.Pieces, Goal: g,
	})
	if err != nil { // cannot happen: plain strings and numbers
		panic("columns: canonical: " + err.Error())
	}
	l.canonical = out
}
