package solveproc

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/columns"
	"github.com/puzzled/puzzled/solver/sheep"
)

// BenchmarkCancel measures how soon a running search returns after its
// context is canceled (the solver contract asks for about 100 ms): each
// iteration starts a long search, waits for its first checkpoint (so it
// is deep in its search), cancels and times the return. It reports the
// median and the worst in ms; timing goals live here, not in the tests.
//
//	go test -run '^$' -bench Cancel ./internal/solveproc/
func BenchmarkCancel(b *testing.B) {
	hard, err := sheep.Generate(rand.New(rand.NewPCG(48, 7)), sheep.GenerateOpts{Tiles: 150, Layers: 20, Types: 15, Slots: 5})
	if err != nil {
		b.Fatal(err)
	}
	// A score out of reach: the search runs until its budget.
	far, err := columns.Generate(rand.New(rand.NewPCG(7, 7)), columns.GenConfig{Width: 8, Height: 14, Rule: columns.RuleLines,
		Colors: 6, Fill: 0.4, Pieces: 200, Goal: columns.GoalScore, Score: 5000})
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		level solver.Level
	}{
		{"sheep", hard.Level},
		{"columns", far},
	} {
		b.Run(tc.name, func(b *testing.B) {
			req := Request{Kind: tc.name, Level: tc.level.Canonical(), CheckpointEvery: time.Millisecond}
			var stops []time.Duration
			for range b.N {
				ctx, cancel := context.WithCancel(context.Background())
				searching := make(chan struct{})
				var once bool
				done := make(chan error, 1)
				go func() {
					_, err := Run(ctx, testRegistry(), req, func([]byte) {
						if !once {
							once = true
							close(searching)
						}
					}, slog.New(slog.DiscardHandler))
					done <- err
				}()
				select {
				case <-searching:
				case err := <-done:
					b.Fatalf("the search ended before its first checkpoint: %v", err)
				}
				asked := time.Now()
				cancel()
				<-done
				stops = append(stops, time.Since(asked))
			}
			slices.Sort(stops)
			b.ReportMetric(float64(stops[len(stops)/2].Microseconds())/1000, "ms-median")
			b.ReportMetric(float64(stops[len(stops)-1].Microseconds())/1000, "ms-max")
		})
	}
}
