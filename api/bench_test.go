package api_test

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/puzzled/puzzled/api"
	"github.com/puzzled/puzzled/solver/sheep"
)

// BenchmarkCreateJob measures POST /v1/jobs end to end through the handler
// (real PostgreSQL and Redis) for a 150-tile sheep level, bare and wrapped;
// its allocs/op is the figure that "parse once" brings down.
func BenchmarkCreateJob(b *testing.B) {
	g, err := sheep.Generate(rand.New(rand.NewPCG(1, 2)), sheep.GenerateOpts{Tiles: 150, Solvable: true})
	if err != nil {
		b.Fatal(err)
	}
	level := g.Level.Canonical()
	wrapped, _ := json.Marshal(map[string]any{"level": json.RawMessage(level), "priority": "bulk",
		"budget": map[string]int{"max_ms": 1000}, "labels": map[string]string{"set": "bench"}})
	f := setup(b, api.Config{Limits: api.Limits{SubmitRate: 1e9}}, false)
	for _, bc := range []struct {
		name string
		body []byte
	}{{"bare", level}, {"wrapped", wrapped}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				req := httptest.NewRequest(http.MethodPost, "/v1/jobs", bytes.NewReader(bc.body))
				req.Header.Set("Content-Type", "application/json")
				rec := httptest.NewRecorder()
				f.api.ServeHTTP(rec, req)
				if rec.Code != http.StatusAccepted {
					b.Fatalf("status %d: %s", rec.Code, rec.Body)
				}
			}
		})
	}
}
