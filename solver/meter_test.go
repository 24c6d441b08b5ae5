package solver_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"testing"

	"github.com/puzzled/puzzled/solver"
)

// TestCheckpointCarriesBestLine: a checkpoint records the search's best
// line so far beside its payload, the payload resumes unchanged, and
// blobs of the first envelope version (no best line) still resume.
func TestCheckpointCarriesBestLine(t *testing.T) {
	payload := []byte("kind payload")
	tests := []struct {
		name string
		best func() solver.Best // nil: the search keeps no best line
		want string             // JSON of the best line in the blob; "" none
	}{
		{"no best line kept", nil, ""},
		{"empty line so far", func() solver.Best { return solver.Best{} }, ""},
		{"a line", func() solver.Best {
			return solver.Best{Plan: json.RawMessage(`["a","b"]`), Moves: 2, Details: map[string]any{"cleared": 6}}
		}, `{"plan":["a","b"],"moves":2,"details":{"cleared":6}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var blob []byte
			m, err := solver.NewMeter(context.Background(), solver.Options{Checkpoint: func(b []byte) { blob = b }})
			if err != nil {
				t.Fatal(err)
			}
			if tc.best != nil {
				m.KeepsBest(tc.best)
			}
			for range 7 {
				m.Tick()
			}
			m.Checkpoint(payload)
			if got := string(solver.CheckpointBest(blob)); got != tc.want {
				t.Fatalf("best line %s, want %q", got, tc.want)
			}
			if n := solver.CheckpointNodes(blob); n != 7 {
				t.Fatalf("nodes %d, want 7", n)
			}
			resumed, err := solver.NewMeter(context.Background(), solver.Options{Resume: blob})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(resumed.Resumed(), payload) || resumed.Nodes() != 7 {
				t.Fatalf("resumed payload %q nodes %d, want %q 7", resumed.Resumed(), resumed.Nodes(), payload)
			}
		})
	}

	v1 := binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64([]byte("PZC1"), 42), 0)
	v1 = append(v1, payload...)
	m, err := solver.NewMeter(context.Background(), solver.Options{Resume: v1})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(m.Resumed(), payload) || m.Nodes() != 42 || solver.CheckpointBest(v1) != nil {
		t.Fatalf("version 1 blob: payload %q nodes %d best %s", m.Resumed(), m.Nodes(), solver.CheckpointBest(v1))
	}
}

// FuzzCheckpointEnvelope: a blob read back is refused or split into parts
// that lie inside it; it never panics.
func FuzzCheckpointEnvelope(f *testing.F) {
	var blob []byte
	m, _ := solver.NewMeter(context.Background(), solver.Options{Checkpoint: func(b []byte) { blob = b }})
	m.KeepsBest(func() solver.Best { return solver.Best{Plan: json.RawMessage(`[1]`), Moves: 1} })
	m.Checkpoint([]byte("payload"))
	f.Add(blob)
	f.Add([]byte("PZC2"))
	f.Add(append([]byte("PZC2"), make([]byte, 20)...))
	f.Fuzz(func(t *testing.T, b []byte) {
		best, payload := solver.CheckpointBest(b), solver.CheckpointPayload(b)
		if len(best)+len(payload) > len(b) {
			t.Fatalf("best %d + payload %d bytes out of a %d-byte blob", len(best), len(payload), len(b))
		}
		if _, err := solver.NewMeter(context.Background(), solver.Options{Resume: b}); (err == nil) != (payload != nil) {
			t.Fatalf("resume error %v with payload %q", err, payload)
		}
	})
}
