package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/puzzled/puzzled/solver/sheep"
)

// dealLayout is a community file with capture fields, 9 tiles, 3 types.
const dealLayout = `{"map_seed":[1,2],"operations":[],"levelData":{
 "1":[{"id":"1-0-0","type":1,"rolNum":0,"rowNum":0,"layerNum":1},{"id":"1-8-0","type":1,"rolNum":8,"rowNum":0,"layerNum":1},
      {"id":"1-16-0","type":1,"rolNum":16,"rowNum":0,"layerNum":1},{"id":"1-24-0","type":2,"rolNum":24,"rowNum":0,"layerNum":1}],
 "2":[{"id":"2-4-0","type":2,"rolNum":4,"rowNum":0,"layerNum":2},{"id":"2-12-0","type":2,"rolNum":12,"rowNum":0,"layerNum":2},
      {"id":"2-20-0","type":3,"rolNum":20,"rowNum":0,"layerNum":2},{"id":"2-28-0","type":3,"rolNum":28,"rowNum":0,"layerNum":2}],
 "3":[{"id":"3-8-0","type":3,"rolNum":8,"rowNum":0,"layerNum":3,"extra":1}]}}`

func TestDealLayout(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "layout.json")
	if err := os.WriteFile(path, []byte(dealLayout), 0o644); err != nil {
		t.Fatal(err)
	}
	layout, err := sheep.Parse([]byte(dealLayout))
	if err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, "", "deal", path, "--count", "12", "--seed", "3")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 12 {
		t.Fatalf("%d lines, want 12", len(lines))
	}
	distinct := map[string]bool{}
	for _, line := range lines {
		l, err := sheep.Parse([]byte(line))
		if err != nil {
			t.Fatalf("deal %s: %v", line, err)
		}
		distinct[line] = true
		counts := map[int]int{}
		for i, tile := range l.Tiles() {
			want := layout.Tiles()[i]
			if tile.ID != want.ID || tile.X != want.X || tile.Y != want.Y || tile.Layer != want.Layer {
				t.Fatalf("tile %+v, layout %+v", tile, want)
			}
			counts[tile.Type]++
		}
		if len(counts) != 3 {
			t.Fatalf("deal has %d types, want 3: %v", len(counts), counts)
		}
		for v, c := range counts {
			if c%3 != 0 {
				t.Fatalf("type %d dealt %d times", v, c)
			}
		}
	}
	if len(distinct) < 6 {
		t.Fatalf("12 deals, only %d distinct", len(distinct))
	}
	code, again, _ := runCLI(t, dealLayout, "deal", "-", "--count", "12", "--seed", "3")
	if code != exitOK || again != out {
		t.Fatalf("same seed from stdin: exit %d, same output %t", code, again == out)
	}
	code, _, stderr = runCLI(t, "", "deal", "--generate", "--count", "2", "--tiles", "264", "--types", "15", "--seed", "9")
	if code != exitOK {
		t.Fatalf("--generate: exit %d: %s", code, stderr)
	}
	if code, _, _ := runCLI(t, "", "deal", path, "--count", "-1"); code != exitError {
		t.Fatalf("negative count: exit %d", code)
	}
	if code, _, _ := runCLI(t, `{"kind":"sheep","tiles":[]}`, "deal", "-"); code != exitError {
		t.Fatalf("bad layout: exit %d", code)
	}
}
