package kinds

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/columns"
	"github.com/puzzled/puzzled/solver/difficulty"
	"github.com/puzzled/puzzled/solver/sheep"
)

// BenchmarkDifficulty measures, per kind, the difficulty figures at the
// default N = 1,000 playouts per player against the solve alone, level by
// level on the same generated levels in the same run. It reports the
// median and max milliseconds of each and the ratio of the medians; run
// with -benchtime=1x (each iteration rates every level once).
func BenchmarkDifficulty(b *testing.B) {
	reg := Registry()
	for _, set := range benchSets(b) {
		b.Run(set.name, func(b *testing.B) {
			var solveMS, rateMS []float64
			for range b.N {
				for _, data := range set.levels {
					lvl, err := reg.Parse(data)
					if err != nil {
						b.Fatal(err)
					}
					k := reg.KindOf(lvl)
					t0 := time.Now()
					res, err := k.Solve(context.Background(), lvl, solver.Options{Budget: solver.Budget{MaxMS: 10_000}})
					if err != nil {
						b.Fatal(err)
					}
					t1 := time.Now()
					if !res.Verdict.Definitive() {
						continue
					}
					if _, err := k.(difficulty.Rater).Rate(context.Background(), lvl, res, difficulty.Options{Workers: 1}); err != nil {
						b.Fatal(err)
					}
					solveMS = append(solveMS, ms(t1.Sub(t0)))
					rateMS = append(rateMS, ms(time.Since(t1)))
				}
			}
			if len(solveMS) == 0 {
				b.Skip("no definitive level in the set")
			}
			sm, rm := median(solveMS), median(rateMS)
			b.ReportMetric(sm, "solve-median-ms")
			b.ReportMetric(slices.Max(solveMS), "solve-max-ms")
			b.ReportMetric(rm, "rate-median-ms")
			b.ReportMetric(slices.Max(rateMS), "rate-max-ms")
			b.ReportMetric(rm/max(sm, 1e-3), "rate/solve")
			b.ReportMetric(float64(len(solveMS)/b.N), "levels")
		})
	}
}

// ms keeps nanoseconds: a zuma hand solve can take less than a microsecond.
func ms(d time.Duration) float64 { return float64(d) / 1e6 }

func median(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	s := slices.Clone(x)
	slices.Sort(s)
	return (s[(len(s)-1)/2] + s[len(s)/2]) / 2
}

type benchSet struct {
	name   string
	levels [][]byte
}

// benchSets generates the levels: sheep (generated, solvable, 60–120
// tiles and realistic 240–330), zuma hand and ammo (random boards), columns
// (random 6×13 boards, 6 pieces, score goal) and twoends (10,000 values).
func benchSets(b *testing.B) []benchSet {
	rng := rand.New(rand.NewPCG(18, 18))
	var sets []benchSet
	for _, size := range []struct {
		name  string
		tiles int
	}{{"sheep-small", 90}, {"sheep-real", 0}} {
		var lv [][]byte
		for range 6 {
			g, err := sheep.Generate(rng, sheep.GenerateOpts{Tiles: size.tiles, Solvable: true})
			if err != nil {
				b.Fatal(err)
			}
			lv = append(lv, g.Level.Canonical())
		}
		sets = append(sets, benchSet{size.name, lv})
	}
	var hand, ammo [][]byte
	for range 20 {
		colors := 3 + rng.IntN(2)
		hand = append(hand, fmt.Appendf(nil, `{"kind":"zuma","board":%q,"hand":%q}`,
			zumaBoard(rng, 8+rng.IntN(7), colors), zumaBalls(rng, 3+rng.IntN(3), colors)))
		ammo = append(ammo, fmt.Appendf(nil, `{"kind":"zuma","board":%q,"ammo":%q}`,
			zumaBoard(rng, 8+rng.IntN(7), colors), zumaBalls(rng, 5+rng.IntN(4), colors)))
	}
	sets = append(sets, benchSet{"zuma-hand", hand}, benchSet{"zuma-ammo", ammo})
	var cols [][]byte
	for range 10 {
		l, err := columns.Generate(rng, columns.GenConfig{Width: 6, Height: 13, Rule: columns.RuleLines, Colors: 4, Fill: 0.3, Pieces: 6, Goal: columns.GoalScore})
		if err != nil {
			b.Fatal(err)
		}
		cols = append(cols, l.Canonical())
	}
	sets = append(sets, benchSet{"columns", cols})
	var two [][]byte
	for range 5 {
		v := make([]string, 10_000)
		for i := range v {
			v[i] = fmt.Sprint(rng.IntN(1000))
		}
		two = append(two, []byte(`{"kind":"twoends","values":[`+strings.Join(v, ",")+`]}`))
	}
	return append(sets, benchSet{"twoends", two})
}

// zumaBoard is a random board of n balls without a run of 3.
func zumaBoard(rng *rand.Rand, n, colors int) string {
	b := make([]byte, 0, n)
	for len(b) < n {
		c := byte('A' + rng.IntN(colors))
		if k := len(b); k >= 2 && b[k-1] == c && b[k-2] == c {
			continue
		}
		b = append(b, c)
	}
	return string(b)
}

func zumaBalls(rng *rand.Rand, n, colors int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('A' + rng.IntN(colors))
	}
	return string(b)
}
