package columns

import (
	"encoding/json"
	"fmt"
	"iter"

	"github.com/puzzled/puzzled/solver"
)

// The repair's edits (solver/repair), all of size 1: one jewel of one
// piece changed to another color the level uses (on its board or in its
// pieces), pieces in order, jewels top to bottom, colors in order.

// MaxEditSize implements solver.Editor.
func (*kind) MaxEditSize() int { return 1 }

// Edits implements solver.Editor.
func (*kind) Edits(lvl solver.Level, size int) iter.Seq[solver.Edit] {
	return func(yield func(solver.Edit) bool) {
		l, ok := lvl.(*Level)
		if !ok || size != 1 {
			return
		}
		var seen [256]bool
		for _, s := range append(append([]string(nil), l.Board...), l.Pieces...) {
			for i := 0; i < len(s); i++ {
				seen[s[i]] = s[i] != '.'
			}
		}
		var colors []byte
		for c := range seen {
			if seen[c] {
				colors = append(colors, byte(c))
			}
		}
		for p, piece := range l.Pieces {
			for j := 0; j < len(piece); j++ {
				for _, c := range colors {
					if c == piece[j] {
						continue
					}
					changed := piece[:j] + string(c) + piece[j+1:]
					desc := fmt.Sprintf("piece %d: %s instead of %s", p+1, changed, piece)
					if !yield(solver.Edit{Desc: desc, Apply: func() (solver.Level, error) { return withPiece(l, p, changed) }}) {
						return
					}
				}
			}
		}
	}
}

// withPiece is l with piece p replaced.
func withPiece(l *Level, p int, piece string) (solver.Level, error) {
	var in levelJSON
	if err := json.Unmarshal(l.Canonical(), &in); err != nil {
		return nil, fmt.Errorf("columns: edit: %w", err)
	}
	in.Pieces[p] = piece
	data, err := json.Marshal(in)
	if err != nil {
		return nil, fmt.Errorf("columns: edit: %w", err)
	}
	return Parse(data)
}
