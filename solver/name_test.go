package solver_test

import (
	"testing"

	"github.com/puzzled/puzzled/solver"
)

// TestCheckNameAndID: names refuse control and bidi characters on top of
// what CheckText refuses; ids refuse white space as well, since the state
// text separates them with spaces.
func TestCheckNameAndID(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, in     string
		nameOK, idOK bool
	}{
		{"plain", "tile-7", true, true},
		{"unicode", "羊-ü-🐑", true, true},
		{"space", "chapter 3", true, false},
		{"no-break space", "a\u00a0b", true, false},
		{"newline", "a\nclickable b", false, false},
		{"tab", "a\tb", false, false},
		{"escape", "a\x1b[31mb", false, false},
		{"DEL", "a\x7fb", false, false},
		{"C1 control", "a\u0085b", false, false},
		{"right-to-left override", "a\u202eb", false, false},
		{"left-to-right isolate", "a\u2066b", false, false},
		{"right-to-left mark", "a\u200fb", false, false},
		{"arabic letter mark", "a\u061cb", false, false},
		{"nul (CheckText)", "a\x00b", false, false},
	} {
		if err := solver.CheckName("labels.k", c.in); (err == nil) != c.nameOK {
			t.Errorf("%s: CheckName(%q) = %v, want ok=%v", c.name, c.in, err, c.nameOK)
		}
		if err := solver.CheckID("tiles[0].id", c.in); (err == nil) != c.idOK {
			t.Errorf("%s: CheckID(%q) = %v, want ok=%v", c.name, c.in, err, c.idOK)
		}
	}
}
