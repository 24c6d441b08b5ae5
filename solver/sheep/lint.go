package sheep

import (
	"fmt"
	"strconv"

	"github.com/puzzled/puzzled/solver"
)

// maxOverlapWarnings bounds the overlap warnings of one level; the last
// one says how many more there are.
const maxOverlapWarnings = 20

// Lint implements solver.Linter. Two tiles of one layer whose squares
// overlap are legal (neither covers the other: covering needs a higher
// layer, docs/formats.md), so both can be clicked while drawn on top of
// each other — something the game never does, so it is a warning, not an
// error. A type whose count is not a multiple of 3, or a tray of fewer
// than 3 slots, decides the level before any search: unsolvable.
func (kind) Lint(lvl solver.Level) []solver.Warning {
	l, err := asLevel(lvl)
	if err != nil {
		return nil
	}
	var out []solver.Warning
	if e := typeCountExplanation(l); len(e.Counts) > 0 {
		out = append(out, solver.Warning{Field: "tiles", Message: e.Summary + " The level cannot be cleared.", Marks: e.Marks})
	}
	if l.slots <= 2 {
		out = append(out, solver.Warning{Field: "slots", Message: fmt.Sprintf(
			"%d slot(s): three tiles of a type can never meet in the tray, so the level cannot be cleared.", l.slots)})
	}
	return append(out, overlaps(l)...)
}

// overlaps warns about pairs of tiles on one layer whose squares overlap.
func overlaps(l *Level) []solver.Warning {
	if !l.geometry {
		return nil
	}
	var out []solver.Warning
	n := 0
	for i, a := range l.tiles {
		for _, b := range l.tiles[i+1:] {
			if a.Layer != b.Layer || abs(a.X-b.X) >= l.tileSize || abs(a.Y-b.Y) >= l.tileSize {
				continue
			}
			n++
			if len(out) < maxOverlapWarnings {
				out = append(out, solver.Warning{Field: "tiles", Marks: []string{a.ID, b.ID}, Message: fmt.Sprintf(
					"Tiles %s and %s overlap on layer %d: neither covers the other (covering needs a higher layer), so both can be clicked while drawn on top of each other.",
					strconv.Quote(a.ID), strconv.Quote(b.ID), a.Layer)})
			}
		}
	}
	if n > maxOverlapWarnings {
		out = append(out, solver.Warning{Field: "tiles", Message: fmt.Sprintf("… and %d more overlapping pairs.", n-maxOverlapWarnings)})
	}
	return out
}
