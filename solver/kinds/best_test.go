package kinds_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/kinds"
	"github.com/puzzled/puzzled/solver/sheep"
)

// TestCheckpointBestIsTheLineAnUnknownEndsWith: a search stopped by its
// budget checkpoints its best line so far, and that line is the plan its
// unknown result ends with: what a running job shows live is what it would
// answer if it stopped there. Kinds whose search keeps a best line: sheep,
// columns, zuma with ammo.
func TestCheckpointBestIsTheLineAnUnknownEndsWith(t *testing.T) {
	t.Parallel()
	g, err := sheep.Generate(rand.New(rand.NewPCG(48, 7)), sheep.GenerateOpts{Tiles: 150, Layers: 20, Types: 15, Slots: 5})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 9))
	// balls is a random row of n balls with no run of three (such runs
	// vanish at once and no level may hold one).
	balls := func(n int) string {
		b := make([]byte, 0, n)
		for len(b) < n {
			c := "RGBY"[rng.IntN(4)]
			if k := len(b); k >= 2 && b[k-1] == c && b[k-2] == c {
				continue
			}
			b = append(b, c)
		}
		return string(b)
	}
	pieces := make([]string, 40)
	for i := range pieces {
		pieces[i] = fmt.Sprintf("%q", balls(3))
	}
	cases := []struct {
		name  string
		level string
		nodes int64
	}{
		{"sheep", string(g.Level.Canonical()), 20_000},
		{"columns", `{"kind":"columns","width":6,"height":13,"rule":"lines","board":[` +
			strings.TrimSuffix(strings.Repeat(`"......",`, 13), ",") + `],"pieces":[` + strings.Join(pieces, ",") +
			`],"goal":{"type":"score","score":60}}`, 3_000},
		{"zuma ammo", `{"kind":"zuma","board":"` + balls(16) + `","ammo":"` + balls(8) + `"}`, 200},
	}
	reg := kinds.Registry()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			lvl, err := reg.Parse([]byte(tc.level))
			if err != nil {
				t.Fatal(err)
			}
			var last []byte
			res, err := reg.KindOf(lvl).Solve(context.Background(), lvl, solver.Options{
				Budget:          solver.Budget{MaxNodes: tc.nodes},
				CheckpointEvery: time.Hour, // only the final checkpoint at the stop
				Checkpoint:      func(b []byte) { last = append(last[:0], b...) },
			})
			if err != nil || res.Verdict != solver.Unknown {
				t.Fatalf("%s, %v: want unknown within %d nodes (make the level harder)", res.Verdict, err, tc.nodes)
			}
			raw := solver.CheckpointBest(last)
			var best solver.Best
			if err := json.Unmarshal(raw, &best); err != nil {
				t.Fatalf("best line of the last checkpoint %q: %v", raw, err)
			}
			var moves []json.RawMessage
			if err := json.Unmarshal(best.Plan, &moves); err != nil || len(moves) != best.Moves || best.Moves == 0 {
				t.Fatalf("best line %s: %d moves (%v), says %d", best.Plan, len(moves), err, best.Moves)
			}
			if !bytes.Equal(best.Plan, res.Plan) {
				t.Fatalf("checkpoint's best line %s, the unknown result's %s", best.Plan, res.Plan)
			}
		})
	}
}
