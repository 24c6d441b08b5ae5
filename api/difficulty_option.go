package api

import (
	"encoding/json"
	"fmt"

	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/difficulty"
)

// decodeDifficulty reads the "difficulty" option of a job or batch,
// {"playouts": N}. The field is required: an empty object silently meaning
// "no figures" (or "the default") would be a trap. Its range is checked
// with the other options (jobtype.Options.Validate).
func decodeDifficulty(raw json.RawMessage) (*jobtype.Difficulty, error) {
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
	return &jobtype.Difficulty{Playouts: *d.Playouts}, nil
}
