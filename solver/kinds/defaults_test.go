package kinds

import (
	"testing"

	"github.com/puzzled/puzzled/solver"
)

// Default budgets come from the kinds: twoends says ten seconds, the rest
// take the common default, and none is longer than it (the queue sizes task
// timeouts by it).
func TestDefaultBudgets(t *testing.T) {
	reg := Registry()
	for _, name := range reg.Names() {
		b := reg.DefaultBudget(name)
		want := int64(solver.DefaultMaxMS)
		if name == "twoends" {
			want = 10_000
		}
		if b.MaxMS != want || b.MaxNodes != 0 {
			t.Errorf("%s: default budget %+v, want %d ms", name, b, want)
		}
	}
}
