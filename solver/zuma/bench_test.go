package zuma

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/puzzled/puzzled/solver"
)

// Benchmarks report per-level figures with b.ReportMetric; run them once:
//
//	go test -run=^$ -bench=. -benchtime=1x ./solver/zuma/

// baselineHand is the textbook LeetCode 488 BFS: every position × every
// distinct hand color, a visited set of (board, sorted hand), with the
// oracle's plain simulator.
func baselineHand(board, hand string) int { return oracleHand(board, hand) }

type levelSpec struct{ board, balls string }

func randomSpecs(seed uint64, count, minBoard, maxBoard, minBalls, maxBalls int) []levelSpec {
	r := rand.New(rand.NewPCG(seed, 1))
	specs := make([]levelSpec, count)
	for i := range specs {
		colors := 2 + r.IntN(4)
		specs[i] = levelSpec{
			board: randomBoard(r, minBoard+r.IntN(maxBoard-minBoard+1), colors),
			balls: randomBalls(r, minBalls+r.IntN(maxBalls-minBalls+1), colors),
		}
	}
	return specs
}

func quantile(d []time.Duration, q float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[int(q*float64(len(s)-1))]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func timeSolve(b *testing.B, lvl *Level, opts solver.Options) (solver.Result, time.Duration) {
	start := time.Now()
	res, err := New().Solve(context.Background(), lvl, opts)
	d := time.Since(start)
	if err != nil {
		b.Fatal(err)
	}
	if err := Verify(lvl, res); err != nil {
		b.Fatal(err)
	}
	return res, d
}

// BenchmarkHandLeetCode: 1,000 random LeetCode-sized levels (board ≤ 16,
// hand ≤ 5), solver against the textbook BFS, per level.
func BenchmarkHandLeetCode(b *testing.B) {
	specs := randomSpecs(488, 1000, 1, 16, 1, 5)
	for range b.N {
		var ours, base []time.Duration
		var totalOurs, totalBase time.Duration
		for _, sp := range specs {
			lvl := level(b, sp.board, sp.balls, "", ModeHand)
			res, d := timeSolve(b, lvl, solver.Options{})
			start := time.Now()
			want := baselineHand(sp.board, sp.balls)
			db := time.Since(start)
			if value(res) != want {
				b.Fatalf("%s: %d, baseline %d", lvl.Canonical(), value(res), want)
			}
			ours, base = append(ours, d), append(base, db)
			totalOurs, totalBase = totalOurs+d, totalBase+db
		}
		b.ReportMetric(ms(quantile(ours, 0.5)), "ms-median")
		b.ReportMetric(ms(quantile(ours, 1)), "ms-max")
		b.ReportMetric(ms(quantile(base, 0.5)), "base-ms-median")
		b.ReportMetric(ms(quantile(base, 1)), "base-ms-max")
		b.ReportMetric(float64(quantile(base, 0.5))/float64(quantile(ours, 0.5)), "x-median")
		b.ReportMetric(float64(totalBase)/float64(totalOurs), "x-total")
	}
}

// BenchmarkHandLarge: boards of 24–32 balls, hands of 6–8: every level
// must be decided; reports the time per level.
func BenchmarkHandLarge(b *testing.B) {
	specs := randomSpecs(4880, 100, 24, 32, 6, 8)
	for range b.N {
		var ds []time.Duration
		undecided, solved := 0, 0
		for _, sp := range specs {
			lvl := level(b, sp.board, sp.balls, "", ModeHand)
			res, d := timeSolve(b, lvl, solver.Options{Budget: solver.Budget{MaxMS: 10000}})
			ds = append(ds, d)
			switch res.Verdict {
			case solver.Unknown:
				undecided++
			case solver.Solved:
				solved++
			}
		}
		b.ReportMetric(ms(quantile(ds, 0.5)), "ms-median")
		b.ReportMetric(ms(quantile(ds, 1)), "ms-max")
		b.ReportMetric(float64(solved), "solved")
		b.ReportMetric(float64(undecided), "undecided")
	}
}

// BenchmarkUnlimited: 200 random boards of 12–16 balls with a 1 s budget
// each: share proven optimal, time per level, and how often the run DP's
// value differs from the proven optimum (and by how much at most).
func BenchmarkUnlimited(b *testing.B) {
	specs := randomSpecs(4881, 200, 12, 16, 0, 0)
	for range b.N {
		var ds, dp []time.Duration
		proven, dpOff, dpWorst := 0, 0, 0
		for _, sp := range specs {
			lvl := level(b, sp.board, "", "", ModeUnlimited)
			res, d := timeSolve(b, lvl, solver.Options{Budget: solver.Budget{MaxMS: 1000}})
			ds = append(ds, d)
			start := time.Now()
			v := runDPValue([]byte(sp.board))
			dp = append(dp, time.Since(start))
			if res.Optimal {
				proven++
				if v != value(res) {
					dpOff++
					dpWorst = max(dpWorst, v-value(res))
				}
			} else {
				b.Logf("%s: not proven, bounds [%d, %d]", sp.board, *res.Stats.LowerBound, *res.Stats.UpperBound)
			}
		}
		b.ReportMetric(100*float64(proven)/float64(len(specs)), "%proven")
		b.ReportMetric(ms(quantile(ds, 0.5)), "ms-median")
		b.ReportMetric(ms(quantile(ds, 1)), "ms-max")
		b.ReportMetric(ms(quantile(dp, 0.5)), "rundp-ms-median")
		b.ReportMetric(100*float64(dpOff)/float64(max(proven, 1)), "%rundp-off")
		b.ReportMetric(float64(dpWorst), "rundp-max-excess")
	}
}

// BenchmarkUnlimitedLong: a 5,000-ball board gets a verified plan; the
// baseline is the plan that fills every run from the left.
func BenchmarkUnlimitedLong(b *testing.B) {
	r := rand.New(rand.NewPCG(5000, 1))
	board := randomBoard(r, 5000, 4)
	lvl := level(b, board, "", "", ModeUnlimited)
	fill := 0
	for _, n := range runsOf(board) {
		fill += 3 - n
	}
	for range b.N {
		res, d := timeSolve(b, lvl, solver.Options{Budget: solver.Budget{MaxMS: 1000}})
		b.ReportMetric(ms(d), "ms")
		b.ReportMetric(float64(value(res)), "insertions")
		b.ReportMetric(float64(*res.Stats.LowerBound), "lower-bound")
		b.ReportMetric(float64(fill), "fill-baseline")
	}
}

func runsOf(b string) []int {
	_, lengths := runs([]byte(b))
	out := make([]int, len(lengths))
	for i, n := range lengths {
		out[i] = int(n)
	}
	return out
}

// BenchmarkAmmo: random ammo levels, board 8–16, ammo 4–8.
func BenchmarkAmmo(b *testing.B) {
	specs := randomSpecs(4882, 100, 8, 16, 4, 8)
	for range b.N {
		var ds []time.Duration
		for _, sp := range specs {
			lvl := level(b, sp.board, "", sp.balls, ModeAmmo)
			_, d := timeSolve(b, lvl, solver.Options{Budget: solver.Budget{MaxMS: 10000}})
			ds = append(ds, d)
		}
		b.ReportMetric(ms(quantile(ds, 0.5)), "ms-median")
		b.ReportMetric(ms(quantile(ds, 1)), "ms-max")
	}
}
