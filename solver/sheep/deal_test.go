package sheep

import (
	"math/rand/v2"
	"testing"
)

func TestDealKeepsLayout(t *testing.T) {
	t.Parallel()
	g, err := Generate(rand.New(rand.NewPCG(7, 7)), GenerateOpts{Tiles: 255, Layers: 24, Types: 14})
	if err != nil {
		t.Fatal(err)
	}
	covers := mustParse(t, []byte(`{"kind":"sheep","slots":5,"tiles":[{"id":"a","type":4,"covers":["b"]},{"id":"b","type":4},{"id":"c","type":9},
		{"id":"d","type":9,"covers":["c"]},{"id":"e","type":4},{"id":"f","type":9}]}`))
	for _, layout := range []*Level{g.Level, covers} {
		seen := map[string]bool{}
		for seed := range uint64(20) {
			d, err := Deal(rand.New(rand.NewPCG(seed, 1)), layout, 0)
			if err != nil {
				t.Fatal(err)
			}
			again, _ := Deal(rand.New(rand.NewPCG(seed, 1)), layout, 0)
			if string(again.Canonical()) != string(d.Canonical()) {
				t.Fatal("a deal is not a function of its seed")
			}
			seen[string(d.Canonical())] = true
			if d.slots != layout.slots || d.geometry != layout.geometry || len(d.types) != len(layout.types) {
				t.Fatalf("deal changed slots/geometry/type count: %d %t %d", d.slots, d.geometry, len(d.types))
			}
			counts := map[int]int{}
			for i, tile := range d.tiles {
				want := layout.tiles[i]
				if tile.ID != want.ID || tile.X != want.X || tile.Y != want.Y || tile.Layer != want.Layer ||
					len(tile.Covers) != len(want.Covers) {
					t.Fatalf("tile %d moved: %+v, layout %+v", i, tile, want)
				}
				counts[tile.Type]++
			}
			for v, c := range counts {
				if c%3 != 0 || !containsInt(layout.types, v) {
					t.Fatalf("type %d dealt %d times (layout types %v)", v, c, layout.types)
				}
			}
		}
		if len(seen) < 10 { // 6 tiles have only 20 deals of 2 types
			t.Fatalf("20 seeds gave only %d distinct deals", len(seen))
		}
	}
	d, err := Deal(rand.New(rand.NewPCG(1, 1)), covers, 2)
	if err != nil || len(d.types) != 2 {
		t.Fatalf("deal with 2 types: %v", err)
	}
	odd := mustParse(t, []byte(`{"kind":"sheep","tiles":[{"id":"a","type":1,"x":0,"y":0,"layer":1},{"id":"b","type":1,"x":0,"y":0,"layer":2}]}`))
	if _, err := Deal(rand.New(rand.NewPCG(1, 1)), odd, 0); err == nil {
		t.Fatal("dealt a layout of 2 tiles")
	}
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
