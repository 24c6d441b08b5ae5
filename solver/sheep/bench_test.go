package sheep

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/puzzled/puzzled/solver"
)

// benchLevels builds the benchmark set: seeds 1..n, even seeds built
// solvable, odd seeds unconstrained random.
func benchLevels(tb testing.TB, n int) []Generated {
	tb.Helper()
	out := make([]Generated, n)
	for seed := 1; seed <= n; seed++ {
		g, err := Generate(rand.New(rand.NewPCG(uint64(seed), 99)), GenerateOpts{Solvable: seed%2 == 0})
		if err != nil {
			tb.Fatal(err)
		}
		out[seed-1] = g
	}
	return out
}

// benchBudget is 10 s per level unless SHEEP_BENCH_MS says otherwise.
func benchBudget() int64 {
	if v, err := strconv.ParseInt(os.Getenv("SHEEP_BENCH_MS"), 10, 64); err == nil && v > 0 {
		return v
	}
	return 10_000
}

type benchTally struct {
	solved, unsolvable, unknown, solvableUnknown int
	times                                        []time.Duration
	nodes                                        int64
}

func (t *benchTally) add(v solver.Verdict, solvable bool, d time.Duration, nodes int64) {
	switch v {
	case solver.Solved:
		t.solved++
	case solver.Unsolvable:
		t.unsolvable++
	default:
		t.unknown++
		if solvable {
			t.solvableUnknown++
		}
	}
	t.times = append(t.times, d)
	t.nodes += nodes
}

// quantile is the q-th time by nearest rank (0.5 the median as report
// has it, 1 the largest).
func (t *benchTally) quantile(q float64) time.Duration {
	slices.Sort(t.times)
	if q == 0.5 {
		return t.times[len(t.times)/2]
	}
	k := int(math.Ceil(q*float64(len(t.times)))) - 1
	return t.times[max(k, 0)]
}

func msOf(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func (t *benchTally) report(b *testing.B) {
	b.ReportMetric(float64(t.solved), "solved")
	b.ReportMetric(float64(t.unsolvable), "unsolvable")
	b.ReportMetric(float64(t.unknown), "unknown")
	b.ReportMetric(float64(t.solvableUnknown), "solvable_unknown")
	b.ReportMetric(msOf(t.quantile(0.5)), "median_ms")
	b.ReportMetric(msOf(t.quantile(0.9)), "p90_ms")
	b.ReportMetric(msOf(t.quantile(1)), "max_ms")
	b.ReportMetric(float64(t.nodes)/float64(len(t.times)), "nodes/level")
}

// BenchmarkRealistic100 solves 100 generated realistic levels (half built
// solvable) with a 10 s budget each, with the exact search and with the
// plain-DFS baseline and sheep/2 (without projection proofs), in the same
// run. Run with -benchtime=1x.
func BenchmarkRealistic100(b *testing.B) {
	levels := benchLevels(b, 100)
	budget := solver.Budget{MaxMS: benchBudget()}
	b.Run("solver=exact", func(b *testing.B) {
		for range b.N {
			var t benchTally
			for k, g := range levels {
				start := time.Now()
				res := solveVerified(b, g.Level, solver.Options{Budget: budget})
				t.add(res.Verdict, k%2 == 1, time.Since(start), res.Stats.Nodes)
			}
			t.report(b)
		}
	})
	b.Run("solver=sheep2", func(b *testing.B) {
		for range b.N {
			var t benchTally
			for k, g := range levels {
				start := time.Now()
				res, err := solveWith(context.Background(), g.Level, solver.Options{Budget: budget}, sheep2ScheduleFor(g.Level))
				if err != nil {
					b.Fatal(err)
				}
				t.add(res.Verdict, k%2 == 1, time.Since(start), res.Stats.Nodes)
			}
			t.report(b)
		}
	})
	b.Run("solver=baseline", func(b *testing.B) {
		for range b.N {
			var t benchTally
			for k, g := range levels {
				start := time.Now()
				v, nodes := baselineSolve(context.Background(), g.Level, budget)
				t.add(v, k%2 == 1, time.Since(start), nodes)
			}
			t.report(b)
		}
	})
}
