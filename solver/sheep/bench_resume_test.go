package sheep

import (
	"context"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/puzzled/puzzled/solver"
)

// BenchmarkResume measures what a resume costs in the unlimited pass,
// where a checkpoint keeps only part of the dead-state table: each of
// SHEEP_DEAL_LIST's L255 deals (default 0, 3, 7, unsolvable, proven by
// that pass) is solved uninterrupted, then stopped after 30 %, 60 % and
// 90 % of those nodes and resumed from the checkpoint written at the stop.
// It reports the median and largest share of nodes done again
// (redone_%_median, redone_%_max), the nodes done again over the nodes of
// all the uninterrupted searches (redone_%_all) and the largest payload, with the
// checkpoint's choice of dead states (solver=sheep) and with the newest
// states first as until sheep/9 (solver=newest). Nodes do not depend on the
// machine's load.
func BenchmarkResume(b *testing.B) {
	l255 := benchLayout(b, "L255")
	numbers := []int{0, 3, 7}
	if os.Getenv("SHEEP_DEAL_LIST") != "" {
		numbers = benchDealNumbers(0)
	}
	var deals []*Level
	for _, k := range numbers {
		d, err := Deal(rand.New(rand.NewPCG(1, uint64(k))), l255, 0)
		if err != nil {
			b.Fatal(err)
		}
		deals = append(deals, d)
	}
	for _, sv := range []struct {
		name   string
		newest bool
	}{{"sheep", false}, {"newest", true}} {
		b.Run("solver="+sv.name, func(b *testing.B) {
			for range b.N {
				var redone []float64
				var again, all int64
				most := 0
				for k, d := range deals {
					sched := scheduleFor(d)
					sched.newestDead = sv.newest
					full, err := solveWith(context.Background(), d, solver.Options{}, sched)
					if err != nil {
						b.Fatal(err)
					}
					for _, frac := range []float64{0.3, 0.6, 0.9} {
						var blob []byte
						opts := solver.Options{
							Budget:          solver.Budget{MaxNodes: int64(frac * float64(full.Stats.Nodes))},
							CheckpointEvery: time.Hour,
							Checkpoint:      func(p []byte) { blob = append(blob[:0], p...) },
						}
						if _, err := solveWith(context.Background(), d, opts, sched); err != nil && blob == nil {
							b.Fatal(err)
						}
						most = max(most, len(blob))
						last, err := solveWith(context.Background(), d, solver.Options{Resume: blob}, sched)
						if err != nil {
							b.Fatal(err)
						}
						if last.Verdict != full.Verdict || !last.Stats.Resumed {
							b.Fatalf("deal %d: resumed %s, uninterrupted %s", numbers[k], last.Verdict, full.Verdict)
						}
						r := 100 * float64(last.Stats.Nodes-full.Stats.Nodes) / float64(full.Stats.Nodes)
						b.Logf("deal %d stopped at %.0f %%: %d nodes resumed, %d uninterrupted (%.1f %% redone), payload %d bytes, %d dead states",
							numbers[k], 100*frac, last.Stats.Nodes, full.Stats.Nodes, r, len(blob), savedDead(b, d, sched, blob))
						redone = append(redone, r)
						again += last.Stats.Nodes - full.Stats.Nodes
						all += full.Stats.Nodes
					}
				}
				slices.Sort(redone)
				b.ReportMetric(redone[len(redone)/2], "redone_%_median")
				b.ReportMetric(redone[len(redone)-1], "redone_%_max")
				b.ReportMetric(100*float64(again)/float64(all), "redone_%_all")
				b.ReportMetric(float64(most), "payload_bytes_max")
			}
		})
	}
}

// savedDead is the number of dead states a checkpoint restores.
func savedDead(b *testing.B, l *Level, sched schedule, blob []byte) int {
	s := newSearch(l, nil, sched)
	if err := s.resume(solver.CheckpointPayload(blob)); err != nil {
		b.Fatal(err)
	}
	return s.dead.len()
}
