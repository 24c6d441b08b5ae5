// Package kinds assembles the registry of every puzzle kind puzzled
// serves. It is the one place a new kind is added.
package kinds

import (
	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/columns"
	"github.com/puzzled/puzzled/solver/sheep"
	"github.com/puzzled/puzzled/solver/twoends"
	"github.com/puzzled/puzzled/solver/zuma"
)

// Registry returns a registry of all kinds.
func Registry() *solver.Registry {
	return solver.NewRegistry(
		columns.New(),
		sheep.New(),
		twoends.New(),
		zuma.New(),
	)
}
