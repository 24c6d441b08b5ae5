package solver

import (
	"encoding/json"
	"fmt"
)

// Position is where some moves of a plan leave a level, as the kind's
// simulator sees it, for a designer who plays a level by hand and asks
// after each move whether it can still be won.
type Position struct {
	// Moves are the legal moves here, each in the plan's format. A kind may
	// leave out moves that lose at once (columns: a piece that does not
	// fit) and says so in its package doc.
	Moves []json.RawMessage
	// Over: no move is left. Won: the goal is reached. Lost: the game is
	// over without it (a full tray, an empty hand). Kinds without a goal
	// (Goal false) are only Over.
	Over, Won, Lost bool
	// Level is this position as a level of its own: solving it answers
	// "can this position still be won?", and its value added to Value
	// (times Sign) is the best total from here. Nil when the game is over.
	Level Level
	// Value is the objective of the moves played so far, where the kind
	// has one (zuma: insertions, or balls vanished with ammo; columns:
	// score; twoends: first minus second).
	Value int64
	// Scored: the kind has an objective, so Value means something (every
	// kind but sheep).
	Scored bool
	// Sign is +1 when Level's value adds to Value and -1 when it counts
	// against it (twoends, the second player to move).
	Sign int64
	// Skip is how many leading moves of any plan of Level only rebuild the
	// position (sheep: the tiles already in the tray); the continuation
	// from here is that plan without them.
	Skip int
	// Goal is true for kinds whose levels are won or not (sheep, zuma with
	// a hand, columns); false for pure optimisation (zuma ammo and
	// unlimited, twoends), where every position has a best value but no
	// "can still be won".
	Goal bool
}

// Positioner is a kind that can describe the position after some moves of
// a plan (the server's step endpoint, POST /v1/play).
type Positioner interface {
	// Position plays plan from lvl's start. It fails where the kind's
	// replay fails (an illegal move).
	Position(lvl Level, plan json.RawMessage) (Position, error)
}

// JoinPlans appends plan b to plan a: two JSON arrays (zuma, sheep,
// columns) or two JSON strings (twoends). An empty a or b is the other.
func JoinPlans(a, b json.RawMessage) (json.RawMessage, error) {
	if len(a) == 0 {
		return b, nil
	}
	if len(b) == 0 {
		return a, nil
	}
	var sa, sb string
	if json.Unmarshal(a, &sa) == nil && json.Unmarshal(b, &sb) == nil {
		return json.Marshal(sa + sb)
	}
	var xa, xb []json.RawMessage
	if err := json.Unmarshal(a, &xa); err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	if err := json.Unmarshal(b, &xb); err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	return json.Marshal(append(xa, xb...))
}

// DropMoves removes the first n moves of plan (an array or a string).
func DropMoves(plan json.RawMessage, n int) (json.RawMessage, error) {
	if n <= 0 || len(plan) == 0 {
		return plan, nil
	}
	var s string
	if json.Unmarshal(plan, &s) == nil {
		return json.Marshal(s[min(n, len(s)):])
	}
	var xs []json.RawMessage
	if err := json.Unmarshal(plan, &xs); err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	return json.Marshal(xs[min(n, len(xs)):])
}

// PlanLen is the number of moves of plan (an array or a string).
func PlanLen(plan json.RawMessage) int {
	var s string
	if json.Unmarshal(plan, &s) == nil {
		return len(s)
	}
	var xs []json.RawMessage
	if json.Unmarshal(plan, &xs) == nil {
		return len(xs)
	}
	return 0
}
