package kinds_test

import (
	"testing"

	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/kinds"
)

// TestDesignerInterfaces: every kind can describe a position for the step
// endpoint; the kinds with unsolvable or unknown results explain them;
// sheep lints its levels.
func TestDesignerInterfaces(t *testing.T) {
	t.Parallel()
	reg := kinds.Registry()
	for _, name := range reg.Names() {
		k, _ := reg.Kind(name)
		if _, ok := k.(solver.Positioner); !ok {
			t.Errorf("%s is not a solver.Positioner", name)
		}
		if _, ok := k.(solver.Explainer); !ok && name != "twoends" { // twoends is always solved
			t.Errorf("%s is not a solver.Explainer", name)
		}
	}
	if k, _ := reg.Kind("sheep"); !isLinter(k) {
		t.Errorf("sheep is not a solver.Linter")
	}
}

func isLinter(k solver.Kind) bool {
	_, ok := k.(solver.Linter)
	return ok
}
