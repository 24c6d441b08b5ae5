package columns

import (
	"context"
	"math/rand/v2"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/puzzled/puzzled/solver"
)

// BenchmarkPlace measures placements (drop + full chain resolution,
// including the board copy) on random mid-game 6×13 boards.
func BenchmarkPlace(b *testing.B) {
	for _, rule := range allRules {
		b.Run(rule, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			type job struct {
				l        *Level
				col, rot int
			}
			var jobs []job
			for len(jobs) < 4096 {
				l, err := Generate(rng, GenConfig{Width: 6, Height: 13, Rule: rule, Colors: 5, Fill: 0.45, Pieces: 1, Goal: GoalSurvive})
				if err != nil {
					b.Fatal(err)
				}
				col := rng.IntN(6)
				if int(l.start.h[col])+3 <= 13 {
					jobs = append(jobs, job{l, col, rng.IntN(3)})
				}
			}
			var dst board
			points := 0
			b.ResetTimer()
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				j := &jobs[i&4095]
				j.l.geom.copyFrom(&dst, &j.l.start)
				t := target{c: -1, r: -1}
				p, _ := j.l.geom.place(&dst, j.col, j.rot, &j.l.pieces[0], &t)
				points += p
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "placements/s")
			b.ReportMetric(float64(b.N)/(cpuTime()-cpu0).Seconds(), "placements/cpu-s")
			if points == 0 && b.N > 1000 {
				b.Fatal("no placement scored")
			}
		})
	}
}

// BenchmarkSearch solves 50 generated score and target levels (30–100
// pieces, 6×13, both rules) with the default solver and no time budget
// (beam rounds of widths 64…1024) and reports the median
// time to a verified plan. The same levels are also played to the end
// (survive goal) by the beam and by a greedy one-piece look-ahead (beam
// width 1, same evaluation); it reports the median ratio of their final
// scores and the goals each reached.
func BenchmarkSearch(b *testing.B) {
	beam := New()
	greedy := NewWithConfig(Config{BeamWidth: 1, ExactNodes: -1})
	for range b.N {
		rng := rand.New(rand.NewPCG(2024, 6))
		var times []float64
		var ratios, perPieceBeam, perPieceGreedy []float64
		solvedBeam, solvedGreedy := 0, 0
		for i := range 50 {
			goal := GoalScore
			if i%2 == 1 {
				goal = GoalTarget
			}
			pieces := 30 + rng.IntN(71)
			l, err := Generate(rng, GenConfig{Width: 6, Height: 13, Rule: allRules[i/2%2], Colors: 5,
				Fill: 0.4, Pieces: pieces, Goal: goal, Score: int64(6 * pieces)})
			if err != nil {
				b.Fatal(err)
			}
			if goal == GoalTarget {
				l = deepTarget(b, l)
			}
			start := time.Now()
			res := benchSolve(b, beam, l)
			times = append(times, float64(time.Since(start).Microseconds())/1000)
			if res.Verdict == solver.Solved {
				solvedBeam++
			}
			if benchSolve(b, greedy, l).Verdict == solver.Solved {
				solvedGreedy++
			}
			full := withGoal(b, l, GoalSurvive, 0)
			sb, sg := benchSolve(b, beam, full), benchSolve(b, greedy, full)
			ratios = append(ratios, float64(*sb.Value+1)/float64(*sg.Value+1))
			perPieceBeam = append(perPieceBeam, float64(*sb.Value)/float64(pieces))
			perPieceGreedy = append(perPieceGreedy, float64(*sg.Value)/float64(pieces))
		}
		b.ReportMetric(median(times), "median-ms/plan")
		b.ReportMetric(slices.Max(times), "max-ms/plan")
		b.ReportMetric(float64(solvedBeam), "beam-solved/50")
		b.ReportMetric(float64(solvedGreedy), "greedy-solved/50")
		b.ReportMetric(median(ratios), "median-score-ratio-vs-greedy")
		b.ReportMetric(median(perPieceBeam), "beam-points/piece")
		b.ReportMetric(median(perPieceGreedy), "greedy-points/piece")
	}
}

// BenchmarkPlaceOracle is the baseline for BenchmarkPlace in the same run:
// the oracle's plain simulator (grid of rows, full rescan per step) on the
// same kind of boards.
func BenchmarkPlaceOracle(b *testing.B) {
	for _, rule := range allRules {
		b.Run(rule, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			type job struct {
				l        *Level
				s        oracleState
				col, rot int
			}
			var jobs []job
			for len(jobs) < 4096 {
				l, err := Generate(rng, GenConfig{Width: 6, Height: 13, Rule: rule, Colors: 5, Fill: 0.45, Pieces: 1, Goal: GoalSurvive})
				if err != nil {
					b.Fatal(err)
				}
				col := rng.IntN(6)
				if int(l.start.h[col])+3 <= 13 {
					jobs = append(jobs, job{l, oracleStart(l), col, rng.IntN(3)})
				}
			}
			b.ResetTimer()
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				j := &jobs[i&4095]
				oracleDrop(j.s, rule, j.l.Pieces[0], j.col, j.rot)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "placements/s")
			b.ReportMetric(float64(b.N)/(cpuTime()-cpu0).Seconds(), "placements/cpu-s")
		})
	}
}

// cpuTime is the process's user+system CPU time: on this shared machine
// it is steadier than wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// deepTarget moves a target goal to the bottom jewel of the tallest
// column.
func deepTarget(b *testing.B, l *Level) *Level {
	col := 0
	for c := range l.Width {
		if l.start.h[c] > l.start.h[col] {
			col = c
		}
	}
	js := levelJSONOf(l.Rule, l.Board, l.Pieces, `{"type":"target","cell":[`+itoa(l.Height-1)+`,`+itoa(col)+`]}`)
	return mustParse(b, js)
}

func benchSolve(b *testing.B, k solver.Kind, l *Level) solver.Result {
	res, err := k.Solve(context.Background(), l, solver.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if err := k.Verify(l, res); err != nil {
		b.Fatal(err)
	}
	return res
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
