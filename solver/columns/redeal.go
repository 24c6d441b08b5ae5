package columns

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"

	"github.com/puzzled/puzzled/solver"
)

// Redeal implements the generator's dealer (solver/generate): the
// template's well, rule, board and goal with its pieces drawn anew, as
// many as it has, of the colors its pieces use.
func (k *kind) Redeal(rng *rand.Rand, lvl solver.Level) (solver.Level, error) {
	l, ok := lvl.(*Level)
	if !ok {
		return nil, fmt.Errorf("columns: redeal: level of kind %q", lvl.Kind())
	}
	var in levelJSON
	if err := json.Unmarshal(l.Canonical(), &in); err != nil {
		return nil, fmt.Errorf("columns: redeal: %w", err)
	}
	var seen [256]bool
	var colors []byte
	for _, p := range l.Pieces {
		for i := 0; i < len(p); i++ {
			if !seen[p[i]] {
				seen[p[i]] = true
				colors = append(colors, p[i])
			}
		}
	}
	for i := range in.Pieces {
		p := make([]byte, 3)
		for j := range p {
			p[j] = colors[rng.IntN(len(colors))]
		}
		in.Pieces[i] = string(p)
	}
	data, err := json.Marshal(in)
	if err != nil {
		return nil, fmt.Errorf("columns: redeal: %w", err)
	}
	return Parse(data)
}
