package sheep

import (
	"context"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/puzzled/puzzled/solver"
)

// FuzzParse: Parse never panics; an accepted level has a canonical form
// that parses back to the same canonical bytes.
func FuzzParse(f *testing.F) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 8 {
		f.Add(smallLevel(rng))
	}
	if b, err := os.ReadFile("testdata/community_level.json"); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`{"kind":"sheep","tiles":[{"id":"a","type":1,"covers":["b"]},{"id":"b","type":1,"covers":["a"]}]}`))
	f.Add([]byte(`{"levelData":{"1":[{"id":"a","type":0,"rolNum":0,"rowNum":0,"layerNum":1}]}}`))
	f.Add([]byte(captureShaped))
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

// FuzzReplay drives the simulator with arbitrary click sequences on a
// fuzzed small level: Replay never panics, the incremental board agrees
// with it click by click, and a small solve verifies.
func FuzzReplay(f *testing.F) {
	f.Add(uint64(1), []byte{0, 1, 2, 3, 4, 5})
	f.Add(uint64(7), []byte{3, 3, 9, 1, 0, 0, 0, 2})
	f.Fuzz(func(t *testing.T, seed uint64, clicks []byte) {
		l := mustParse(t, smallLevel(rand.New(rand.NewPCG(seed, 0))))
		n := len(l.tiles)
		b := newBoard(l)
		var line []int32
		for _, c := range clicks {
			i := int32(int(c) % n)
			o, err := replay(l, append(line, i))
			clickable := b.pos[i] >= 0
			if (err == nil) != clickable {
				t.Fatalf("replay err %v, board clickable %t", err, clickable)
			}
			if err != nil {
				break
			}
			b.apply(i)
			line = append(line, i)
			if b.traySize != o.Tray || b.cleared() != o.Cleared {
				t.Fatalf("board tray %d cleared %d, replay %+v", b.traySize, b.cleared(), o)
			}
			if o.Lost {
				break
			}
		}
		for k := len(line) - 1; k >= 0; k-- {
			b.undo(line[k])
		}
		fresh := newBoard(l)
		if b.traySize != 0 || b.hash != 0 || len(b.clk) != len(fresh.clk) || b.left != n {
			t.Fatalf("undo did not restore the start")
		}
		res, err := Solve(context.Background(), l, solver.Options{Budget: solver.Budget{MaxNodes: 5000}})
		if err != nil {
			t.Fatal(err)
		}
		if err := Verify(l, res); err != nil {
			t.Fatal(err)
		}
	})
}
