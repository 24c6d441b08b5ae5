package sheep

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/puzzled/puzzled/solver"
)

// TestGenerateRealistic checks the shape the issue asks of generated
// levels, and that the witness of every solvable one wins.
func TestGenerateRealistic(t *testing.T) {
	t.Parallel()
	for seed := uint64(1); seed <= 30; seed++ {
		solvable := seed%2 == 0
		g, err := Generate(rand.New(rand.NewPCG(seed, 5)), GenerateOpts{Solvable: solvable})
		if err != nil {
			t.Fatal(err)
		}
		l := g.Level
		if n := l.NumTiles(); n < 240 || n > 330 || n%3 != 0 {
			t.Fatalf("seed %d: %d tiles", seed, n)
		}
		if c := len(l.Clickable()); c < 20 || c > 40 {
			t.Fatalf("seed %d: %d clickable at start", seed, c)
		}
		if k := len(l.types); k < 14 || k > 16 {
			t.Fatalf("seed %d: %d types", seed, k)
		}
		layers, piles := map[int]bool{}, map[string]int{}
		count := map[int]int{}
		for _, tl := range l.tiles {
			count[tl.Type]++
			if tl.ID[0] == 'p' {
				piles[tl.ID[:2]]++
				continue
			}
			layers[tl.Layer] = true
			if tl.X%4 != 0 || tl.Y%4 != 0 || tl.X+8 > 64 || tl.Y+8 > 80 {
				t.Fatalf("seed %d: tile %s off the 64×80 4-unit grid", seed, tl.ID)
			}
		}
		if len(layers) < 20 || len(layers) > 40 || len(piles) != 2 || piles["p1"] < 8 || piles["p2"] > 12 {
			t.Fatalf("seed %d: %d layers, piles %v", seed, len(layers), piles)
		}
		for v, c := range count {
			if c%3 != 0 {
				t.Fatalf("seed %d: type %d has %d tiles", seed, v, c)
			}
		}
		if solvable {
			o, err := Replay(l, g.Witness)
			if err != nil || !o.Won {
				t.Fatalf("seed %d: witness does not win: %v %+v", seed, err, o)
			}
		} else if g.Witness != nil {
			t.Fatalf("seed %d: random level with a witness", seed)
		}
	}
}

// TestGenerateSmallOptions: explicit options are honoured, bad ones fail.
func TestGenerateSmallOptions(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 3))
	g, err := Generate(rng, GenerateOpts{Tiles: 31, Layers: 3, Types: 4, Slots: 5, Solvable: true})
	if err != nil {
		t.Fatal(err)
	}
	if g.Level.NumTiles() != 30 || g.Level.Slots() != 5 || len(g.Level.types) > 4 {
		t.Fatalf("got %d tiles, %d slots, %d types", g.Level.NumTiles(), g.Level.Slots(), len(g.Level.types))
	}
	res := solveVerified(t, g.Level, solver.Options{})
	if res.Verdict != solver.Solved {
		t.Fatalf("solvable level: %s", res.Verdict)
	}
	for _, o := range []GenerateOpts{{Tiles: 2}, {Tiles: 30, Slots: 2, Solvable: true}, {Tiles: 30, Types: MaxTypes + 1}} {
		if _, err := Generate(rng, o); err == nil {
			t.Fatalf("options %+v accepted", o)
		}
	}
}

// TestGenerateDeterministic: same seed, same level.
func TestGenerateDeterministic(t *testing.T) {
	t.Parallel()
	a, _ := Generate(rand.New(rand.NewPCG(9, 9)), GenerateOpts{Solvable: true})
	b, _ := Generate(rand.New(rand.NewPCG(9, 9)), GenerateOpts{Solvable: true})
	if string(a.Level.Canonical()) != string(b.Level.Canonical()) {
		t.Fatal("generator is not deterministic")
	}
}

// TestGenerateSpreadBroadensMounds: with the same seed, a one-mound layout
// with Spread 24 covers more distinct places than the tight tower (Spread
// 0, i.e. 4) and its deepest tile lies under fewer tiles.
func TestGenerateSpreadBroadensMounds(t *testing.T) {
	t.Parallel()
	shape := func(spread int) (places int, deepest int32) {
		g, err := Generate(rand.New(rand.NewPCG(1, 0x1a70)), GenerateOpts{Tiles: 255, Layers: 24, Types: 14, Mounds: 1, Spread: spread})
		if err != nil {
			t.Fatal(err)
		}
		seen := map[[2]int]bool{}
		for _, tl := range g.Level.tiles {
			seen[[2]int{tl.X, tl.Y}] = true
		}
		return len(seen), slices.Max(g.Level.beneath)
	}
	tightPlaces, tightDeep := shape(0)
	widePlaces, wideDeep := shape(24)
	t.Logf("tight: %d places, deepest stack %d; spread 24: %d places, %d", tightPlaces, tightDeep, widePlaces, wideDeep)
	if widePlaces <= tightPlaces || wideDeep >= tightDeep {
		t.Fatalf("spread 24 is not broader: %d places (tight %d), deepest %d (tight %d)", widePlaces, tightPlaces, wideDeep, tightDeep)
	}
}

// TestGeneratePileTiles: PileTiles sets both blind piles' size, and the
// tile count stays the one asked for.
func TestGeneratePileTiles(t *testing.T) {
	t.Parallel()
	g, err := Generate(rand.New(rand.NewPCG(1, 0x1a70)), GenerateOpts{Tiles: 255, Layers: 24, Types: 15, Mounds: 1, Spread: 24, PileTiles: 20})
	if err != nil {
		t.Fatal(err)
	}
	piles := map[string]int{}
	for _, tl := range g.Level.tiles {
		if tl.ID[0] == 'p' {
			piles[tl.ID[:2]]++
		}
	}
	if g.Level.NumTiles() != 255 || piles["p1"] != 20 || piles["p2"] != 20 {
		t.Fatalf("%d tiles, piles %v", g.Level.NumTiles(), piles)
	}
	if _, err := Generate(rand.New(rand.NewPCG(1, 1)), GenerateOpts{Tiles: 90, PileTiles: 40}); err == nil {
		t.Fatal("piles of 40 in 90 tiles accepted")
	}
}
