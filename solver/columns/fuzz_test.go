package columns

import (
	"math/rand/v2"
	"testing"
)

// FuzzParse: Parse never panics, and an accepted level's canonical form
// parses to itself.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"kind":"columns","width":3,"height":3,"rule":"lines","board":["...","...","RG."],"pieces":["RGB"],"goal":{"type":"clear"}}`))
	f.Add([]byte(`{"kind":"columns","width":4,"height":3,"rule":"groups","board":["....","R...","RG.."],"pieces":["RGB","AAA"],"goal":{"type":"target","cell":[1,0]}}`))
	f.Add([]byte(`{"kind":"columns","width":3,"height":3,"pieces":["RGB"],"goal":{"type":"score","score":5}}`))
	f.Add([]byte(`{"kind":"columns","width":3,"height":3,"board":["..R",".RG","RGB"],"pieces":["RGB"],"goal":{"type":"survive"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := Parse(data)
		if err != nil {
			return
		}
		again, err := Parse(l.Canonical())
		if err != nil {
			t.Fatalf("canonical %s does not parse: %v", l.Canonical(), err)
		}
		if string(again.Canonical()) != string(l.Canonical()) {
			t.Fatalf("canonical not stable:\n%s\n%s", l.Canonical(), again.Canonical())
		}
	})
}

// FuzzSimulator plays fuzzed moves on a random level (from seed) with the
// package's simulator and the oracle's and compares every placement.
func FuzzSimulator(f *testing.F) {
	f.Add(uint64(1), []byte{0, 1, 2, 3, 4, 5, 6, 7}, false)
	f.Add(uint64(2), []byte{9, 9, 9, 9, 9, 9}, true)
	f.Add(uint64(3), []byte{255, 17, 33, 4, 0, 0, 0, 1, 2}, true)
	f.Fuzz(func(t *testing.T, seed uint64, moves []byte, groups bool) {
		rng := rand.New(rand.NewPCG(seed, seed>>32))
		rule := RuleLines
		if groups {
			rule = RuleGroups
		}
		if len(moves) > 64 {
			moves = moves[:64]
		}
		l, err := Generate(rng, GenConfig{Width: 3 + rng.IntN(8), Height: 3 + rng.IntN(14), Rule: rule,
			Colors: 2 + rng.IntN(5), Fill: rng.Float64() * 0.7, Pieces: max(len(moves), 1), Goal: GoalTarget})
		if err != nil {
			t.Fatal(err)
		}
		os := oracleStart(l)
		b, tg := l.start, l.initialTarget()
		for i, mv := range moves {
			col, rot := int(mv)%l.Width, int(mv)/l.Width%3
			next, want, okWant := oracleDrop(os, l.Rule, l.Pieces[i], col, rot)
			got, ok := l.geom.place(&b, col, rot, &l.pieces[i], &tg)
			if ok != okWant || got != want {
				t.Fatalf("piece %d (%d,%d): got %d,%v, oracle %d,%v", i, col, rot, got, ok, want, okWant)
			}
			if !ok {
				return
			}
			os = next
			rows := rowsFromBoard(&b, l.Width, l.Height)
			for r := range rows {
				if rows[r] != string(os.grid[r]) {
					t.Fatalf("piece %d: row %d %q, oracle %q", i, r, rows[r], os.grid[r])
				}
			}
			if tg.hit() == os.hasTarget() || !tg.hit() && os.target != [2]int{l.Height - 1 - int(tg.r), int(tg.c)} {
				t.Fatalf("piece %d: target %v, oracle %v", i, tg, os.target)
			}
		}
	})
}
