package sheep

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/puzzled/puzzled/solver"
)

// TestPositionAgreesWithOracle plays random legal, never-losing prefixes of
// random small levels (fixed seed) and checks the position against the
// brute-force oracle run from the same clicked set of the original level:
// its level is solvable exactly when the oracle can still win; a plan of
// it starts with the tray's tiles and, without them, wins the original
// level after the prefix; its moves are the clickable tiles.
func TestPositionAgreesWithOracle(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 32))
	counts := map[string]int{}
	for k := range 1500 {
		data := smallLevel(rng)
		l := mustParse(t, data)
		prefix, mask := randomPrefix(rng, l)
		plan := mustJSON(prefix)
		p, err := kind{}.Position(l, plan)
		if err != nil {
			t.Fatalf("level %d %s: position after %v: %v", k, data, prefix, err)
		}
		states, err := States(l, prefix)
		if err != nil {
			t.Fatal(err)
		}
		last := states[len(states)-1].View.(StateView)
		var clickable []string
		for _, tl := range last.Tiles {
			if !tl.Covered {
				clickable = append(clickable, tl.ID)
			}
		}
		var moves []string
		for _, m := range p.Moves {
			var id string
			_ = json.Unmarshal(m, &id)
			moves = append(moves, id)
		}
		if p.Over {
			if p.Level != nil || len(moves) != 0 {
				t.Fatalf("level %d: a finished position has a level or moves", k)
			}
			if p.Won != last.Won {
				t.Fatalf("level %d: won %t, simulator %t", k, p.Won, last.Won)
			}
			counts["over"]++
			continue
		}
		if !slices.Equal(moves, clickable) {
			t.Fatalf("level %d: moves %v, clickable %v", k, moves, clickable)
		}
		res := solveVerified(t, p.Level.(*Level), solver.Options{})
		o := newOracle(l)
		var line []int
		want := o.dfs(mask, &line)
		if (res.Verdict == solver.Solved) != want || res.Verdict == solver.Unknown {
			t.Fatalf("level %d %s after %v: position %s (%s), oracle winnable %t", k, data, prefix, res.Verdict, res.Proof, want)
		}
		counts[string(res.Verdict)]++
		if res.Verdict != solver.Solved {
			continue
		}
		var full []string
		_ = json.Unmarshal(res.Plan, &full)
		trayIDs := map[string]bool{}
		for _, tt := range last.Tray {
			trayIDs[tt.ID] = true
		}
		for _, id := range full[:p.Skip] {
			if !trayIDs[id] {
				t.Fatalf("level %d: the position's plan starts with %q, not a tray tile (%v)", k, id, last.Tray)
			}
		}
		out, err := Replay(l, append(append([]string{}, prefix...), full[p.Skip:]...))
		if err != nil || !out.Won {
			t.Fatalf("level %d: prefix + continuation does not win: %v %+v", k, err, out)
		}
	}
	t.Logf("positions: %v", counts)
	if counts["solved"] < 100 || counts["unsolvable"] < 50 {
		t.Fatalf("random positions do not cover both verdicts: %v", counts)
	}
}

// randomPrefix clicks random clickable tiles that do not lose, for a
// random number of clicks, and returns the ids and the clicked set.
func randomPrefix(rng *rand.Rand, l *Level) ([]string, uint32) {
	var ids []string
	var mask uint32
	steps := rng.IntN(len(l.tiles) + 1)
	for range steps {
		var ok []string
		for _, t := range l.tiles {
			if slices.Contains(ids, t.ID) {
				continue
			}
			o, err := Replay(l, append(append([]string{}, ids...), t.ID))
			if err == nil && !o.Lost {
				ok = append(ok, t.ID)
			}
		}
		if len(ok) == 0 {
			break
		}
		id := ok[rng.IntN(len(ok))]
		ids = append(ids, id)
		mask |= 1 << l.index[id]
	}
	return ids, mask
}

// TestExplainTrayOverflow: a pile ABCABCABC (top first) with 6 slots can
// only be clicked in one order, and the sixth click fills the tray; the
// explanation says so and names its proof.
func TestExplainTrayOverflow(t *testing.T) {
	t.Parallel()
	var tiles []map[string]any
	for k, typ := range []int{1, 2, 3, 1, 2, 3, 1, 2, 3} {
		tiles = append(tiles, map[string]any{"id": string(rune('a' + k)), "type": typ, "x": 0, "y": 0, "layer": 9 - k})
	}
	l := mustParse(t, mustJSON(map[string]any{"kind": "sheep", "slots": 6, "tiles": tiles}))
	res := solveVerified(t, l, solver.Options{})
	if res.Verdict != solver.Unsolvable {
		t.Fatalf("verdict %s", res.Verdict)
	}
	e := kind{}.Explain(l, res, solver.Budget{})
	text := e.Summary + " " + strings.Join(e.Facts, " ")
	if !strings.Contains(text, "full by click 6") || e.Step == nil {
		t.Fatalf("explanation %+v", e)
	}
}

// TestExplainTypeCount names the types whose count is off, and the lint
// says the same before any solve; same-layer overlaps are warned about.
func TestExplainTypeCount(t *testing.T) {
	t.Parallel()
	l := mustParse(t, []byte(`{"kind":"sheep","tiles":[
		{"id":"a","type":1,"x":0,"y":0,"layer":1},{"id":"b","type":1,"x":8,"y":0,"layer":1},
		{"id":"c","type":1,"x":16,"y":0,"layer":1},{"id":"d","type":1,"x":24,"y":0,"layer":1},
		{"id":"e","type":2,"x":28,"y":0,"layer":1},{"id":"f","type":2,"x":40,"y":0,"layer":1}]}`))
	res := solveVerified(t, l, solver.Options{})
	e := kind{}.Explain(l, res, solver.Budget{})
	if res.Proof != "precheck:type-count" || e.Counts["1"] != 4 || e.Counts["2"] != 2 ||
		!strings.Contains(e.Summary, "type 1 (A) has 4") || !strings.Contains(e.Summary, "type 2 (B) has 2") {
		t.Fatalf("%s: %+v", res.Proof, e)
	}
	w := kind{}.Lint(l)
	if len(w) != 2 || !strings.Contains(w[0].Message, "type 1 (A) has 4") ||
		!slices.Equal(w[1].Marks, []string{"d", "e"}) || !strings.Contains(w[1].Message, "overlap on layer 1") {
		t.Fatalf("lint: %+v", w)
	}
}
