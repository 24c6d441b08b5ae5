package sheep

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/difficulty"
)

// BenchmarkLadderDeals rates deals of real-style layouts with the default
// figures (1,000 playouts per player, the ladder) on one goroutine: the
// score histogram over LADDER_SOLVED solved deals per layout (default 20;
// the measurement is 200), the largest share one score value
// holds, and the cost of the figures against the solve alone (medians of
// nodes and milliseconds per deal). LADDER_LAYOUTS picks the layouts
// (default capture-255,capture-264: the game's own layouts, testdata/,
// dealt anew; or any other layout of benchLayout); LADDER_LOG=1 prints
// every deal's ladder. Deal k of a layout is Deal(PCG(1, k)); unsolved
// deals are skipped. Run with -benchtime=1x.
func BenchmarkLadderDeals(b *testing.B) {
	want := envPositive("LADDER_SOLVED", 20)
	names := []string{"capture-255", "capture-264"}
	if v := os.Getenv("LADDER_LAYOUTS"); v != "" {
		names = strings.Split(v, ",")
	}
	for _, name := range names {
		layout := benchLayout(b, name)
		b.Run("layout="+name, func(b *testing.B) {
			for range b.N {
				var t ladderTally
				for k := 0; t.rated < want; k++ {
					d, err := Deal(rand.New(rand.NewPCG(1, uint64(k))), layout, 0)
					if err != nil {
						b.Fatal(err)
					}
					t.deal(b, name, k, d)
				}
				t.report(b)
			}
		})
	}
}

type ladderTally struct {
	rated, skipped        int
	hist                  [11]int
	solveMS, rateMS, pos  []float64
	solveNodes, rateNodes []float64
	incomplete            int
}

// deal solves and rates deal k and records it when solved.
func (t *ladderTally) deal(b *testing.B, name string, k int, d *Level) {
	t0 := time.Now()
	res, err := Solve(context.Background(), d, solver.Options{Budget: solver.Budget{MaxMS: 20_000}})
	if err != nil {
		b.Fatal(err)
	}
	t1 := time.Now()
	if res.Verdict != solver.Solved {
		t.skipped++
		return
	}
	f, err := kind{}.Rate(context.Background(), d, res, difficulty.Options{Workers: 1})
	if err != nil {
		b.Fatal(err)
	}
	t.rated++
	t.hist[*f.Score]++
	t.solveMS = append(t.solveMS, float64(t1.Sub(t0).Microseconds())/1000)
	t.rateMS = append(t.rateMS, float64(time.Since(t1).Microseconds())/1000)
	t.solveNodes = append(t.solveNodes, float64(res.Stats.Nodes))
	// The figures' nodes: playouts are not counted, the ladder's beams
	// and the exact search (at most its budget) are.
	t.rateNodes = append(t.rateNodes, float64(f.Ladder.Nodes))
	t.pos = append(t.pos, f.Ladder.Position)
	if !f.Ladder.Complete {
		t.incomplete++
	}
	if os.Getenv("LADDER_LOG") != "" {
		line := fmt.Sprintf("%s deal %d: score %d position %.2f solve %d nodes, ladder %d nodes:", name, k, *f.Score, f.Ladder.Position, res.Stats.Nodes, f.Ladder.Nodes)
		for _, r := range f.Ladder.Rungs {
			line += fmt.Sprintf(" %s%d:%d/%d", r.Player, r.Width, r.Wins, r.Games)
		}
		fmt.Fprintln(os.Stderr, line)
	}
}

func (t *ladderTally) report(b *testing.B) {
	top := slices.Max(t.hist[1:])
	b.Logf("scores 1..10 %v of %d solved deals (%d unsolved skipped); largest share %.1f %%; median position %.2f; %d ladders incomplete",
		t.hist[1:], t.rated, t.skipped, 100*float64(top)/float64(t.rated), medianOf(t.pos), t.incomplete)
	b.Logf("median solve %.0f ms %.0f nodes; median figures %.0f ms, ladder %.0f nodes; figures/solve %.1f× (ms), %.1f× (nodes)",
		medianOf(t.solveMS), medianOf(t.solveNodes), medianOf(t.rateMS), medianOf(t.rateNodes),
		medianOf(t.rateMS)/medianOf(t.solveMS), medianOf(t.rateNodes)/medianOf(t.solveNodes))
	b.ReportMetric(100*float64(top)/float64(t.rated), "max-share-%")
	b.ReportMetric(medianOf(t.rateMS), "rate-median-ms")
	b.ReportMetric(medianOf(t.solveMS), "solve-median-ms")
}

func medianOf(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	s := slices.Clone(x)
	slices.Sort(s)
	return (s[(len(s)-1)/2] + s[len(s)/2]) / 2
}

// envPositive is a positive integer from the environment, or def.
func envPositive(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}
