package solver

import "iter"

// Editor is implemented by the kinds whose levels can be repaired
// (package solver/repair): it lists the small changes of a level.
type Editor interface {
	// Edits yields the edits of the given size of lvl, in a fixed order,
	// each different from the level.
	Edits(lvl Level, size int) iter.Seq[Edit]
	// MaxEditSize is the largest size Edits knows.
	MaxEditSize() int
}

// Edit is one change of a level: what it does, for people, and the
// changed level, built on demand (candidates skipped on a resume are
// never built).
type Edit struct {
	Desc  string
	Apply func() (Level, error)
}
