package sheep

// A precheck is a static test that proves a level unsolvable. Each one
// carries its proof; the differential tests run them against exhaustive
// search.
type precheck struct {
	name string
	dead func(l *Level) bool
}

var prechecks = []precheck{
	// type-count: a vanish removes exactly three tiles of one type, and
	// nothing else removes a tile, so a won game has removed a multiple of
	// three tiles of every type. A type whose count is not a multiple of
	// three can never be cleared.
	{"type-count", func(l *Level) bool {
		count := make([]int, len(l.types))
		for _, t := range l.typ {
			count[t]++
		}
		for _, c := range count {
			if c%3 != 0 {
				return true
			}
		}
		return false
	}},
	// slots: the first vanish needs three clicks, and after the second
	// click the tray holds two tiles (one click cannot vanish anything), so
	// with slots <= 2 the game is lost by then; with slots <= 2 a level
	// that passed type-count has at least three tiles, so it has a second
	// click.
	{"slots", func(l *Level) bool { return l.slots <= 2 }},
}

// precheckFail returns the name of the first precheck that proves l
// unsolvable, or "".
func precheckFail(l *Level) string {
	for _, p := range prechecks {
		if p.dead(l) {
			return p.name
		}
	}
	return ""
}
