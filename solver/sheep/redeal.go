package sheep

import (
	"math/rand/v2"

	"github.com/puzzled/puzzled/solver"
)

// Redeal implements the generator's and the repair's dealer
// (solver/generate): a deal of the level's layout with its type count.
func (kind) Redeal(rng *rand.Rand, lvl solver.Level) (solver.Level, error) {
	l, err := asLevel(lvl)
	if err != nil {
		return nil, err
	}
	return Deal(rng, l, 0)
}
