package sheep

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/puzzled/puzzled/solver"
)

func TestParseCommunityFile(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/community_level.json")
	if err != nil {
		t.Fatal(err)
	}
	l := mustParse(t, data)
	if l.NumTiles() != 9 || l.Slots() != 7 || l.tileSize != 8 || !l.geometry {
		t.Fatalf("got %d tiles, %d slots, size %d, geometry %t", l.NumTiles(), l.Slots(), l.tileSize, l.geometry)
	}
	// The blind pile 3-4-68 → 2-4-68 → 1-4-68 is a chain; 3-8-8 covers
	// 2-4-4 and 2-12-4 (4×4 overlaps), which cover the layer-1 tiles; 3-8-8
	// and 1-8-0 only touch edges.
	got := strings.Join(l.Clickable(), ",")
	if got != "3-4-68,3-8-8" {
		t.Fatalf("clickable = %s", got)
	}
	native := `{"kind":"sheep","tiles":[
		{"id":"3-4-68","type":1,"x":4,"y":68,"layer":3},{"id":"2-4-68","type":1,"x":4,"y":68,"layer":2},
		{"id":"1-4-68","type":2,"x":4,"y":68,"layer":1},{"id":"3-8-8","type":1,"x":8,"y":8,"layer":3},
		{"id":"2-4-4","type":1,"x":4,"y":4,"layer":2},{"id":"2-12-4","type":2,"x":12,"y":4,"layer":2},
		{"id":"1-0-0","type":1,"x":0,"y":0,"layer":1},{"id":"1-8-0","type":2,"x":8,"y":0,"layer":1},
		{"id":"1-16-0","type":1,"x":16,"y":0,"layer":1}]}`
	n := mustParse(t, []byte(native))
	if string(n.Canonical()) != string(l.Canonical()) {
		t.Fatalf("canonical forms differ:\n%s\n%s", n.Canonical(), l.Canonical())
	}
	if !strings.HasPrefix(string(l.Canonical()), `{"kind":"sheep","slots":7,"tile_size":8,"tiles":[{"id":"1-0-0","type":1,"x":0,"y":0,"layer":1}`) {
		t.Fatalf("canonical = %s", l.Canonical())
	}
	res := solveVerified(t, l, solver.Options{})
	if res.Verdict != solver.Solved {
		t.Fatalf("verdict %s %s", res.Verdict, res.Proof)
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	tile := func(s string) string { return `{"kind":"sheep","tiles":[` + s + `]}` }
	cases := []struct {
		name, in, field, reason string
	}{
		{"not json", `{`, "", "invalid JSON"},
		{"missing kind", `{"tiles":[{"id":"a","type":1,"x":0,"y":0,"layer":0}]}`, "kind", "missing"},
		{"wrong kind", `{"kind":"zuma","tiles":[]}`, "kind", "must be"},
		{"unknown field", `{"kind":"sheep","tiles":[],"foo":1}`, "foo", "unknown field"},
		{"unknown tile field", tile(`{"id":"a","type":1,"x":0,"y":0,"layer":0,"z":1}`), "z", "unknown field"},
		{"no tiles", tile(``), "tiles", "no tiles"},
		{"slots", `{"kind":"sheep","slots":0,"tiles":[{"id":"a","type":1,"x":0,"y":0,"layer":0}]}`, "slots", "must be in"},
		{"tile_size", `{"kind":"sheep","tile_size":-1,"tiles":[{"id":"a","type":1,"x":0,"y":0,"layer":0}]}`, "tile_size", "must be in"},
		{"missing id", tile(`{"type":1,"x":0,"y":0,"layer":0}`), "tiles[0].id", "missing"},
		{"empty id", tile(`{"id":"","type":1,"x":0,"y":0,"layer":0}`), "tiles[0].id", "bytes long"},
		{"duplicate id", tile(`{"id":"a","type":1,"x":0,"y":0,"layer":0},{"id":"a","type":1,"x":8,"y":0,"layer":0}`), "tiles[1].id", "duplicate"},
		{"missing type", tile(`{"id":"a","x":0,"y":0,"layer":0}`), "tiles[0].type", "missing"},
		{"negative type", tile(`{"id":"a","type":-1,"x":0,"y":0,"layer":0}`), "tiles[0].type", "must be in"},
		{"fraction type", tile(`{"id":"a","type":1.5,"x":0,"y":0,"layer":0}`), "tiles.type", "must be a number"},
		{"missing x", tile(`{"id":"a","type":1,"y":0,"layer":0}`), "tiles[0].x", "missing"},
		{"negative layer", tile(`{"id":"a","type":1,"x":0,"y":0,"layer":-2}`), "tiles[0].layer", "must be in"},
		{"unknown cover", tile(`{"id":"a","type":1,"covers":["b"]}`), "tiles[0].covers[0]", "unknown tile"},
		{"self cover", tile(`{"id":"a","type":1,"covers":["a"]}`), "tiles[0].covers[0]", "itself"},
		{"repeated cover", tile(`{"id":"a","type":1,"covers":["b","b"]},{"id":"b","type":1}`), "tiles[0].covers[1]", "twice"},
		{"cycle", tile(`{"id":"a","type":1,"covers":["b"]},{"id":"b","type":1,"covers":["c"]},{"id":"c","type":1,"covers":["a"]}`), "covers", "cycle"},
		{"community type 0", `{"levelData":{"1":[{"id":"a","type":0,"rolNum":0,"rowNum":0,"layerNum":1,"moldType":1}]}}`, `levelData["1"][0].type`, "no type assigned"},
		{"community missing layer", `{"levelData":{"1":[{"id":"a","type":2,"rolNum":0,"rowNum":0,"moldType":1}]}}`, `levelData["1"][0].layerNum`, "missing"},
		{"community string coordinate", `{"levelData":{"1":[{"id":"a","type":2,"rolNum":"0","rowNum":0,"layerNum":1}]}}`, `levelData["1"][0].rolNum`, "must be a number"},
		{"community numeric id", `{"levelData":{"1":[{"id":7,"type":2,"rolNum":0,"rowNum":0,"layerNum":1}]}}`, `levelData["1"][0].id`, "must be a string"},
		{"community fraction type", `{"levelData":{"1":[{"id":"a","type":2.5,"rolNum":0,"rowNum":0,"layerNum":1}]}}`, `levelData["1"][0].type`, "must be a number"},
		{"community null tile", `{"levelData":{"1":[null]}}`, `levelData["1"][0]`, "must be an object"},
		{"community layers not object", `{"levelData":[1,2]}`, "levelData", "must be an object"},
		{"community kind not string", `{"kind":1,"levelData":{}}`, "kind", "must be a string"},
		{"community empty", `{"levelData":{}}`, "levelData", "no tiles"},
		{"community wrong kind", `{"kind":"zuma","levelData":{"1":[]}}`, "kind", "must be"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse([]byte(c.in))
			var fe *solver.FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v, want a FieldError", err)
			}
			if !strings.Contains(fe.Field, c.field) || !strings.Contains(fe.Reason, c.reason) {
				t.Fatalf("err = %q, want field %q and reason %q", err, c.field, c.reason)
			}
		})
	}
}

func TestParseTooManyTiles(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(`{"kind":"sheep","tiles":[`)
	for i := range MaxTiles + 1 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"id":"t` + itoa(i) + `","type":1,"x":0,"y":0,"layer":0}`)
	}
	b.WriteString(`]}`)
	if _, err := Parse([]byte(b.String())); err == nil || !strings.Contains(err.Error(), "at most") {
		t.Fatalf("err = %v", err)
	}
}

func TestCoversCanonical(t *testing.T) {
	t.Parallel()
	a := mustParse(t, []byte(`{"kind":"sheep","tiles":[{"id":"b","type":1},{"id":"a","type":1,"covers":["c","b"]},{"id":"c","type":1,"x":5}]}`))
	b := mustParse(t, []byte(`{"kind":"sheep","slots":7,"tile_size":3,"tiles":[{"id":"a","type":1,"covers":["b","c"]},{"id":"c","type":1},{"id":"b","type":1,"covers":[]}]}`))
	want := `{"kind":"sheep","slots":7,"tiles":[{"id":"a","type":1,"covers":["b","c"]},{"id":"b","type":1,"covers":[]},{"id":"c","type":1,"covers":[]}]}`
	if string(a.Canonical()) != want || string(b.Canonical()) != want {
		t.Fatalf("canonical:\n%s\n%s\nwant %s", a.Canonical(), b.Canonical(), want)
	}
}
