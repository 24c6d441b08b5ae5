package sheep

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/puzzled/puzzled/solver"
)

func TestSolveHandWritten(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, level string
		verdict     solver.Verdict
		proof       string
		cleared     int
	}{
		{"one triple", `{"kind":"sheep","tiles":[{"id":"a","type":1,"covers":[]},{"id":"b","type":1},{"id":"c","type":1}]}`, solver.Solved, "", 3},
		{"type count", `{"kind":"sheep","tiles":[{"id":"a","type":1,"covers":[]},{"id":"b","type":1},{"id":"c","type":2}]}`, solver.Unsolvable, "precheck:type-count", 0},
		{"two slots", `{"kind":"sheep","slots":2,"tiles":[{"id":"a","type":1,"covers":[]},{"id":"b","type":1},{"id":"c","type":1}]}`, solver.Unsolvable, "precheck:slots", 0},
		// With 3 slots the tray holds at most 2: the stack forces A B … so
		// the first two clicks are different types and the third loses.
		{"stack blocks", `{"kind":"sheep","slots":3,"tiles":[
			{"id":"1","type":1,"covers":["2"]},{"id":"2","type":2,"covers":["3"]},{"id":"3","type":1,"covers":["4"]},
			{"id":"4","type":2},{"id":"5","type":1},{"id":"6","type":2}]}`, solver.Unsolvable, "exhaustive", 0},
		// Same stack with 4 slots: 1 2 then 5 (type 1 pair) … 3 clears.
		{"stack with room", `{"kind":"sheep","slots":4,"tiles":[
			{"id":"1","type":1,"covers":["2"]},{"id":"2","type":2,"covers":["3"]},{"id":"3","type":1,"covers":["4"]},
			{"id":"4","type":2},{"id":"5","type":1},{"id":"6","type":2}]}`, solver.Solved, "", 6},
		// Geometry: the tile on layer 2 half-overlaps both layer-1 tiles;
		// touching edges (x 0 and 8) do not cover.
		{"geometry", `{"kind":"sheep","tiles":[{"id":"t","type":1,"x":4,"y":0,"layer":2},
			{"id":"l","type":1,"x":0,"y":0,"layer":1},{"id":"r","type":1,"x":8,"y":0,"layer":1}]}`, solver.Solved, "", 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			l := mustParse(t, []byte(c.level))
			res := solveVerified(t, l, solver.Options{})
			if res.Verdict != c.verdict || res.Proof != c.proof || res.Details["cleared"] != c.cleared {
				t.Fatalf("got %s %q cleared %v, want %s %q %d", res.Verdict, res.Proof, res.Details["cleared"], c.verdict, c.proof, c.cleared)
			}
		})
	}
}

func TestGeometryCovers(t *testing.T) {
	t.Parallel()
	l := mustParse(t, []byte(`{"kind":"sheep","tiles":[{"id":"t","type":1,"x":4,"y":4,"layer":2},
		{"id":"a","type":1,"x":0,"y":0,"layer":1},{"id":"b","type":1,"x":12,"y":0,"layer":1},
		{"id":"c","type":1,"x":4,"y":11,"layer":1},{"id":"d","type":1,"x":4,"y":12,"layer":1},{"id":"e","type":1,"x":4,"y":4,"layer":2}]}`))
	got := strings.Join(l.Clickable(), ",")
	if got != "b,d,e,t" { // a and c are covered by t and e; b and d only touch
		t.Fatalf("clickable %s", got)
	}
}

// TestDominanceSkipsTwins: three identical free tiles of one type give one
// branch, not three; a free tile is dominated by a same-type tile that
// covers something.
func TestDominanceSkipsTwins(t *testing.T) {
	t.Parallel()
	l := mustParse(t, []byte(`{"kind":"sheep","tiles":[{"id":"a","type":1,"covers":[]},{"id":"b","type":1},{"id":"c","type":1},
		{"id":"d","type":2,"covers":["e"]},{"id":"e","type":2},{"id":"f","type":2}]}`))
	b := newBoard(l)
	moves, _ := b.genMoves(nil, nil, 0, nil)
	if len(moves) != 2 || moves[0] != 3 || moves[1] != 0 { // d (f is dominated), a (b, c are)
		t.Fatalf("moves %v", moves)
	}
}

func TestUnknownCarriesBestLine(t *testing.T) {
	t.Parallel()
	l := hardLevel(t)
	res := solveVerified(t, l, solver.Options{Budget: solver.Budget{MaxNodes: 2000}})
	if res.Verdict != solver.Unknown || res.Details["cleared"].(int) < 30 {
		t.Fatalf("got %s cleared %v", res.Verdict, res.Details["cleared"])
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Solve(ctx, l, solver.Options{})
	if !errors.Is(err, context.Canceled) || res.Verdict != solver.Unknown {
		t.Fatalf("cancelled: %v %s", err, res.Verdict)
	}
}

func TestVerifyRejects(t *testing.T) {
	t.Parallel()
	l := mustParse(t, []byte(`{"kind":"sheep","tiles":[{"id":"a","type":1,"covers":["b"]},{"id":"b","type":1},{"id":"c","type":1}]}`))
	good := solveVerified(t, l, solver.Options{})
	details := func(c int) map[string]any { return map[string]any{"tiles": 3, "cleared": c} }
	bad := []solver.Result{
		{Verdict: solver.Solved, Plan: []byte(`["b","a","c"]`), Details: details(3)},
		{Verdict: solver.Solved, Plan: []byte(`["a","b"]`), Details: details(0)},
		{Verdict: solver.Solved, Plan: good.Plan, Details: details(2)},
		{Verdict: solver.Solved, Plan: good.Plan, Details: map[string]any{"tiles": 3}},
		{Verdict: solver.Solved, Plan: good.Plan, Details: details(3), Value: solver.Int64(1)},
		{Verdict: solver.Unsolvable, Proof: "precheck:type-count", Plan: []byte(`[]`), Details: details(0)},
		{Verdict: solver.Unsolvable, Proof: "magic", Plan: []byte(`[]`), Details: details(0)},
		{Verdict: solver.Unknown, Plan: []byte(`["a","zz"]`), Details: details(0)},
		{Verdict: "maybe", Plan: []byte(`[]`), Details: details(0)},
	}
	for k, r := range bad {
		if err := Verify(l, r); err == nil {
			t.Errorf("bad result %d accepted: %+v", k, r)
		}
	}
}

// TestBeneathCounts: transitive counts, a tile reached twice counted once.
func TestBeneathCounts(t *testing.T) {
	t.Parallel()
	l := mustParse(t, []byte(`{"kind":"sheep","tiles":[{"id":"a","type":1,"covers":["b","c"]},{"id":"b","type":1,"covers":["c"]},
		{"id":"c","type":1,"covers":["e"]},{"id":"d","type":2,"covers":["b"]},{"id":"e","type":2},{"id":"f","type":2}]}`))
	want := []int32{3, 2, 1, 3, 0, 0} // a: b c e; b: c e; c: e; d: b c e
	for i, w := range want {
		if l.beneath[i] != w {
			t.Fatalf("beneath %v, want %v", l.beneath, want)
		}
	}
}

// TestBoardKeepsDug: board.dug, which apply and undo keep, is Level.beneath
// summed over the removed tiles after every click and undo of random
// walks, and a copy (copyFrom, as the beam makes its boards) is the same
// state with the same dug.
func TestBoardKeepsDug(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 34))
	sum := func(b *board) int64 {
		var dug int64
		for i := range b.l.tiles {
			if b.removed[i>>6]&(1<<(uint(i)&63)) != 0 {
				dug += int64(b.l.beneath[i])
			}
		}
		return dug
	}
	checked := 0
	for range 300 {
		l := mustParse(t, smallLevel(rng))
		b := newBoard(l)
		var path []int32
		for range 40 {
			if len(path) > 0 && (len(b.clk) == 0 || rng.IntN(3) == 0) {
				b.undo(path[len(path)-1])
				path = path[:len(path)-1]
			} else if len(b.clk) > 0 {
				mv := b.clk[rng.IntN(len(b.clk))]
				b.apply(mv)
				path = append(path, mv)
			}
			if got, want := b.dug, sum(b); got != want {
				t.Fatalf("after %v: dug %d, want %d", path, got, want)
			}
			c := b.sibling()
			c.copyFrom(b)
			if c.dug != b.dug || c.hash != b.hash || !slices.Equal(c.cov, b.cov) || !slices.Equal(c.clkBits, b.clkBits) || !slices.Equal(c.clk, b.clk) {
				t.Fatalf("after %v: the copy differs", path)
			}
			checked++
		}
	}
	if checked < 10000 {
		t.Fatalf("only %d states checked", checked)
	}
}
