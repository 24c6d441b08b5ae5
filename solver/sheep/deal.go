package sheep

import (
	"fmt"
	"math/rand/v2"
)

// Deal returns a new deal of layout: the same tiles (ids, places or
// covers lists) and tray, with the types dealt anew the way the game deals
// them over a fixed layout: types tiles kinds (the layout's own type count
// when types is 0, its type values first), each a multiple of three tiles
// (the triples split as evenly as possible, the remainder to random types),
// shuffled uniformly over the tiles. It is a pure function of rng and its
// arguments and does no I/O.
func Deal(rng *rand.Rand, layout *Level, types int) (*Level, error) {
	n := len(layout.tiles)
	if n%3 != 0 {
		return nil, fmt.Errorf("sheep: deal: the layout has %d tiles, not a multiple of 3", n)
	}
	if types == 0 {
		types = len(layout.types)
	}
	if types < 1 || types > MaxTypes {
		return nil, fmt.Errorf("sheep: deal: %d types, want 1 to %d", types, MaxTypes)
	}
	values := dealValues(layout.types, types)
	var bag []int
	for v, c := range tripleQuota(rng, n, types) {
		for range 3 * c {
			bag = append(bag, values[v])
		}
	}
	rng.Shuffle(len(bag), func(i, j int) { bag[i], bag[j] = bag[j], bag[i] })
	raw := make([]rawTile, n)
	for i, t := range layout.Tiles() {
		t.Type = bag[i]
		raw[i] = rawTile{Tile: t, field: fmt.Sprintf("tiles[%d]", i)}
	}
	return build(layout.slots, max(layout.tileSize, 1), layout.geometry, raw)
}

// DealNumber is deal k of seed over layout: Deal with PCG(seed, k), the
// deal `puzzlectl deal --seed seed` writes on its line k (from 0). The
// benchmarks deal through it too, so a deal they name is the one
// puzzlectl writes.
func DealNumber(layout *Level, seed uint64, k int, types int) (*Level, error) {
	return Deal(rand.New(rand.NewPCG(seed, uint64(k))), layout, types)
}

// dealValues maps quota index 1..types to type values: the layout's values
// (ascending, 0 excluded, as a community file has no type 0) and then the
// smallest unused positive values. Index 0 is unused.
func dealValues(layoutTypes []int, types int) []int {
	values := []int{0}
	used := map[int]bool{}
	for _, v := range layoutTypes {
		if v > 0 && len(values) <= types {
			values = append(values, v)
			used[v] = true
		}
	}
	for v := 1; len(values) <= types; v++ {
		if !used[v] {
			values = append(values, v)
		}
	}
	return values
}
