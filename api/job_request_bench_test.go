package api

import (
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/kinds"
	"github.com/puzzled/puzzled/solver/sheep"
)

// decodeJobRequestTwice is how POST /v1/jobs read its body before
// decodeJobRequest, kept as the baseline of BenchmarkJobRequestParse: a
// kind probe, the strict wrapper decode, then the registry's own probe.
func decodeJobRequestTwice(body []byte) (solver.Level, error) {
	var probe struct {
		Kind json.RawMessage `json:"kind"`
	}
	if err := json.Unmarshal(body, &probe); err != nil {
		return nil, solver.DecodeError(err)
	}
	var req struct {
		Level    json.RawMessage `json:"level"`
		Priority string          `json:"priority"`
		Budget   solver.Budget   `json:"budget"`
		Labels   json.RawMessage `json:"labels"`
	}
	if probe.Kind != nil {
		req.Level = body
	} else if err := solver.DecodeStrict(body, &req); err != nil {
		return nil, err
	}
	return kinds.Registry().Parse(req.Level)
}

// BenchmarkJobRequestParse compares, in one run, the old and the new way
// of reading a POST /v1/jobs body and parsing its level (no database): a
// 150-tile sheep level, bare and wrapped.
func BenchmarkJobRequestParse(b *testing.B) {
	g, err := sheep.Generate(rand.New(rand.NewPCG(1, 2)), sheep.GenerateOpts{Tiles: 150, Solvable: true})
	if err != nil {
		b.Fatal(err)
	}
	level := g.Level.Canonical()
	wrapped, _ := json.Marshal(map[string]any{"level": json.RawMessage(level), "priority": "bulk",
		"budget": map[string]int{"max_ms": 1000}, "labels": map[string]string{"set": "bench"}})
	reg := kinds.Registry()
	for _, form := range []struct {
		name string
		body []byte
	}{{"bare", level}, {"wrapped", wrapped}} {
		b.Run(form.name+"/before", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := decodeJobRequestTwice(form.body); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(form.name+"/after", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				req, err := decodeJobRequest(reg, form.body)
				if err != nil {
					b.Fatal(err)
				}
				if req.Kind != "" {
					_, err = reg.ParseAs(req.Kind, req.Level)
				} else {
					_, err = reg.Parse(req.Level)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
