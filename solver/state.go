package solver

import (
	"encoding/json"
	"errors"
)

// State is a level's position after Step moves of a plan, as the kind's
// simulator sees it. Text is the canonical state text (docs/states.md):
// equal positions give equal text, so a page or a tool can be compared
// with the simulator byte for byte.
type State struct {
	Step int             `json:"step"`
	Move json.RawMessage `json:"move,omitempty"` // the plan entry that led here
	Text string          `json:"text"`
	// View is the kind's structured position, for drawing.
	View any `json:"view"`
	// Cleared is what the move removed (kind-specific), nil at step 0.
	Cleared any `json:"cleared,omitempty"`
}

// Stepper is a kind whose simulator can list every state of a plan:
// States returns len(plan)+1 states, step 0 being the level as given.
// It fails where the kind's replay fails, and with an error that is
// ErrTooManyStates (errors.Is) for a level too large to list them all.
type Stepper interface {
	States(lvl Level, plan json.RawMessage) ([]State, error)
}

// ErrTooManyStates is what a Stepper's error is (errors.Is) when the level
// is too large for every state of a plan to be listed: the API answers
// 413 rather than 500.
var ErrTooManyStates = errors.New("too many states to list")
