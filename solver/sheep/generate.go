package sheep

import (
	"fmt"
	"math/rand/v2"
)

// GenerateOpts shape a generated level. Zero fields take realistic random
// values: 240–330 tiles, 20–40 layers, 14–16 types, 7 slots.
type GenerateOpts struct {
	Tiles    int  // total tiles, rounded down to a multiple of 3
	Layers   int  // layers of the main area
	Types    int  // distinct tile types
	Slots    int  // tray size
	Solvable bool // build the types along a winning line
	// Mounds > 0 makes every layer gather tightly around one of Mounds
	// fixed centres, so the layers stack into deep towers as in the
	// game's own layouts (a real-style layout); 0 keeps a random centre
	// and spread per layer.
	Mounds int
	// Spread is how loosely each layer of a mound gathers around its
	// centre, in field units (a random jitter added to each cell's
	// distance); 0 means 4, the tight towers of the first real-style
	// layouts. Larger values give broader, shallower mounds.
	Spread int
	// PileTiles is the size of each of the two blind piles; 0 means 8–12
	// at random per pile, as in the game's layouts. Other sizes let a
	// benchmark check that a gain does not hang on the piles' size.
	PileTiles int
}

// Generated is a generated level; Witness is a winning line (tile ids in
// click order) when the level was built to be solvable.
type Generated struct {
	Level   *Level
	Witness []string
}

// Field of generated levels: 64×80 units on a 4-unit grid, tile size 8.
// The main area uses y < 64; the two blind piles sit below it.
const (
	genWidth    = 64
	genMainY    = 56 // largest y of a main-area tile
	genPileY    = 68
	genMinClick = 20
	genMaxClick = 40
)

// Generate builds a realistic level: a main area of stacked layers whose
// tiles sit on a 4-unit grid (alternate layers shifted by half a tile in
// x, y or both), two blind piles of 8–12 tiles each (a stack at one spot,
// only the top one clickable), and 20–40 tiles clickable at the start.
// Solvable levels get their types along a random winning line, keeping the
// tray at most 5 full; others get a random shuffle of the types (every
// type count a multiple of 3 either way). It does no I/O.
func Generate(rng *rand.Rand, opts GenerateOpts) (Generated, error) {
	opts = opts.withDefaults(rng)
	if opts.Tiles < 3 || opts.Tiles > MaxTiles || opts.Types < 1 || opts.Types > MaxTypes ||
		opts.Layers < 1 || opts.Slots < 1 || opts.Slots > MaxSlots || opts.PileTiles < 0 || 2*opts.PileTiles > opts.Tiles/2 {
		return Generated{}, fmt.Errorf("sheep: generate: options out of range: %+v", opts)
	}
	if opts.Solvable && opts.Slots < 3 {
		return Generated{}, fmt.Errorf("sheep: generate: no level is solvable with %d slots", opts.Slots)
	}
	// Aim at a random number of start-clickable tiles; retry the geometry
	// (with a fresh spread) until it lands near it, then anywhere in range.
	target := genMinClick + rng.IntN(genMaxClick-genMinClick+1)
	var raw []rawTile
	for try := 0; ; try++ {
		raw = genGeometry(rng, opts)
		n := countClickable(raw)
		inRange := n >= genMinClick && n <= genMaxClick
		if (inRange && (abs(n-target) <= 2 || try >= 100)) || try == 5000 {
			break
		}
	}
	var witness []int
	if opts.Solvable {
		witness = assignAlongLine(rng, raw, opts)
	} else {
		assignShuffled(rng, raw, opts)
	}
	var g Generated
	for _, k := range witness { // before build, which sorts raw
		g.Witness = append(g.Witness, raw[k].ID)
	}
	l, err := build(opts.Slots, DefaultTileSize, true, raw)
	if err != nil {
		return Generated{}, fmt.Errorf("sheep: generate: %w", err)
	}
	g.Level = l
	return g, nil
}

func (o GenerateOpts) withDefaults(rng *rand.Rand) GenerateOpts {
	if o.Tiles == 0 {
		o.Tiles = 240 + 3*rng.IntN(31)
	}
	o.Tiles -= o.Tiles % 3
	if o.Layers == 0 {
		o.Layers = 20 + rng.IntN(21)
	}
	if o.Types == 0 {
		o.Types = 14 + rng.IntN(3)
	}
	if o.Slots == 0 {
		o.Slots = DefaultSlots
	}
	return o
}

// genGeometry places the tiles (types unset). Blind piles take 8–12 tiles
// each (PileTiles if set) when the level has room for them.
func genGeometry(rng *rand.Rand, o GenerateOpts) []rawTile {
	var raw []rawTile
	main := o.Tiles
	if o.Tiles >= 60 {
		for p, x := range []int{8, 48} {
			// Draw the random size even when PileTiles replaces it, so the
			// rest of the layout is the one the same seed gives without it.
			size := 8 + rng.IntN(5)
			if o.PileTiles > 0 {
				size = o.PileTiles
			}
			for k := 1; k <= size; k++ {
				raw = append(raw, rawTile{Tile: Tile{ID: fmt.Sprintf("p%d-%d", p+1, k), X: x, Y: genPileY, Layer: k}})
			}
			main -= size
		}
	}
	counts := splitCounts(rng, main, o.Layers)
	spread := 4 + rng.IntN(48) // how loosely a layer gathers around its centre
	var centres [][2]int
	for range o.Mounds {
		centres = append(centres, [2]int{genWidth/4 + rng.IntN(genWidth/2), genMainY/4 + rng.IntN(genMainY/2)})
	}
	for layer := 1; layer <= o.Layers; layer++ {
		var centre *[2]int
		if len(centres) > 0 {
			centre, spread = &centres[rng.IntN(len(centres))], max(o.Spread, 4)
		}
		raw = append(raw, genLayer(rng, layer, counts[layer-1], spread, centre)...)
	}
	return raw
}

// splitCounts splits total into parts counts, each at most 49 (a layer's
// room), the upper layers a little smaller so the top stays open.
func splitCounts(rng *rand.Rand, total, parts int) []int {
	counts := make([]int, parts)
	for left := total; left > 0; {
		k := rng.IntN(parts)
		if k >= parts/2 && rng.IntN(3) == 0 {
			k = rng.IntN(parts)
		}
		if counts[k] < 49 {
			counts[k]++
			left--
		} else if allFull(counts) {
			break
		}
	}
	return counts
}

func allFull(counts []int) bool {
	for _, c := range counts {
		if c < 49 {
			return false
		}
	}
	return true
}

// genLayer places k tiles of one layer on distinct cells of its grid; the
// grid is shifted by half a tile on alternate layers, and the tiles gather
// in a random sub-rectangle so layers stack into mounds.
// A non-nil centre replaces the layer's random one.
func genLayer(rng *rand.Rand, layer, k, spread int, centre *[2]int) []rawTile {
	ox, oy := 4*(layer%2), 4*((layer/2)%2)
	var cells [][2]int
	for x := ox; x+DefaultTileSize <= genWidth; x += DefaultTileSize {
		for y := oy; y <= genMainY; y += DefaultTileSize {
			cells = append(cells, [2]int{x, y})
		}
	}
	cx, cy := genWidth/4+rng.IntN(genWidth/2), genMainY/4+rng.IntN(genMainY/2)
	if centre != nil {
		cx, cy = centre[0], centre[1]
	}
	rng.Shuffle(len(cells), func(i, j int) { cells[i], cells[j] = cells[j], cells[i] })
	// Prefer cells near the layer's centre: sort a prefix by distance.
	dist := func(c [2]int) int { return abs(c[0]-cx) + abs(c[1]-cy) + rng.IntN(spread) }
	keys := make([]int, len(cells))
	for i, c := range cells {
		keys[i] = dist(c)
	}
	sortCells(cells, keys)
	if k > len(cells) {
		k = len(cells)
	}
	out := make([]rawTile, k)
	for i := range out {
		c := cells[i]
		out[i] = rawTile{Tile: Tile{ID: fmt.Sprintf("%d-%d-%d", layer, c[0], c[1]), X: c[0], Y: c[1], Layer: layer}}
	}
	return out
}

func sortCells(cells [][2]int, keys []int) {
	for i := 1; i < len(cells); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
			cells[j], cells[j-1] = cells[j-1], cells[j]
		}
	}
}

func countClickable(raw []rawTile) int {
	n := 0
	for i, a := range raw {
		covered := false
		for j, b := range raw {
			if i != j && b.Layer > a.Layer && abs(a.X-b.X) < DefaultTileSize && abs(a.Y-b.Y) < DefaultTileSize {
				covered = true
				break
			}
		}
		if !covered {
			n++
		}
	}
	return n
}
