package wire

import (
	"encoding/json"

	"github.com/puzzled/puzzled/solver"
)

// Validation is POST /v1/levels/validate: whether the kind's parser takes
// a level, and if so its canonical form, hash and the linter's warnings.
type Validation struct {
	Valid bool `json:"valid"`
	// Error and Field: why the parser refused the level, and where.
	Error string `json:"error,omitempty"`
	Field string `json:"field,omitempty"`
	// Kind, Hash and Level (canonical JSON, what POST /v1/jobs takes back)
	// of a valid level.
	Kind     string           `json:"kind,omitempty"`
	Hash     string           `json:"hash,omitempty"`
	Level    json.RawMessage  `json:"level,omitempty"`
	Warnings []solver.Warning `json:"warnings,omitempty"`
}

// PlayRequest is the body of POST /v1/play: a level, the moves played
// from its start (in the plan's format), and the budget of the solve that
// answers "can this position still be won?" (max_ms 0: 2,000 ms).
type PlayRequest struct {
	Level  json.RawMessage `json:"level"`
	Moves  json.RawMessage `json:"moves,omitempty"`
	Budget solver.Budget   `json:"budget,omitzero"`
	// History asks for every state from the start, not only the last (a
	// page opening a shared address of a played line draws what each move
	// took).
	History bool `json:"history,omitempty"`
}

// Play is POST /v1/play: the position after the moves, from the kind's
// simulator, the legal moves there, and the kind's solver on the rest.
type Play struct {
	Kind  string       `json:"kind"`
	State solver.State `json:"state"`
	// History is every state from the start when the request asked.
	History []solver.State `json:"history,omitempty"`
	// Moves are the legal moves (plan entries); empty once Over.
	Moves []json.RawMessage `json:"moves"`
	Over  bool              `json:"over"`
	Won   bool              `json:"won"`
	Lost  bool              `json:"lost"`
	// Goal: the kind's levels are won or not (sheep, zuma with a hand,
	// columns); then Winnable says whether this position can still be won:
	// true or false when the solve decided it, absent when its budget ran
	// out. Kinds without a goal (twoends, zuma ammo and unlimited) answer
	// Value only.
	Goal     bool  `json:"goal"`
	Winnable *bool `json:"winnable,omitempty"`
	// Verdict, Proof and Nodes are the solve of the rest of the game; Line
	// is its plan from here (a best continuation), Value the kind's
	// objective of the whole game along the moves and then Line.
	Verdict solver.Verdict  `json:"verdict,omitempty"`
	Proof   string          `json:"proof,omitempty"`
	Value   *int64          `json:"value,omitempty"`
	Optimal bool            `json:"optimal"`
	Line    json.RawMessage `json:"line,omitempty"`
	Nodes   int64           `json:"nodes"`
	// ElapsedMS is the solve's time.
	ElapsedMS int64 `json:"elapsed_ms"`
}
