package api

import (
	"encoding/json"
	"fmt"

	"github.com/puzzled/puzzled/api/wire"
	"github.com/puzzled/puzzled/queue"
	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/difficulty"
)

// decodeDifficulty reads the "difficulty" option of a job or batch,
// {"playouts": N}. The field is required: an empty object silently meaning
// "no figures" (or "the default") would be a trap.
func decodeDifficulty(raw json.RawMessage) (*wire.DifficultyOption, error) {
	var d struct {
		Playouts *int `json:"playouts"`
	}
	if err := decodeOption("difficulty", raw, &d); err != nil {
		return nil, err
	}
	if d.Playouts == nil {
		return nil, &solver.FieldError{Field: "difficulty.playouts",
			Reason: fmt.Sprintf("missing: playouts per player, 0 (no figures) to %d", difficulty.MaxPlayouts)}
	}
	return &wire.DifficultyOption{Playouts: *d.Playouts}, nil
}

// checkDifficulty validates a decoded difficulty option (nil is valid).
func checkDifficulty(d *wire.DifficultyOption) (field, reason string) {
	if d != nil && (d.Playouts < 0 || d.Playouts > difficulty.MaxPlayouts) {
		return "difficulty.playouts", fmt.Sprintf("must be between 0 (no figures) and %d", difficulty.MaxPlayouts)
	}
	return "", ""
}

// playoutsFor is the difficulty option stored with a job: what it asked
// for, else none for bulk jobs and the worker's default (nil) for
// interactive ones. Figures cost 30–2,800× a fast solve
// (docs/difficulty.md), so a bulk batch of easy levels would mostly
// measure difficulty; a designer asking about one level wants them.
func playoutsFor(priority string, d *wire.DifficultyOption) *int {
	switch {
	case d != nil:
		n := d.Playouts
		return &n
	case priority == queue.Bulk:
		n := 0
		return &n
	}
	return nil
}
