// Package kinds assembles the registry of every puzzle kind puzzled
// serves. It is the one place a new kind is added.
package kinds

import (
	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/twoends"
)

// Registry returns a registry of all kinds.
func Registry() *solver.Registry {
	return solver.NewRegistry(
		twoends.New(),
	)
}
