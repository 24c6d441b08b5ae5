package sheep

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/repair"
)

// BenchmarkRepairDeals repairs REPAIR_DEALS unsolvable deals (default 5)
// of the one-tower layout L255 (REPAIR_LAYOUT to change it: a layout of
// BenchmarkLadderDeals, or T120, a one-tower layout of 120 tiles; REPAIR_SLOTS
// to change its tray; deals the solver does not prove unsolvable within
// 20 s are skipped) with swaps of two tiles'
// types, at most REPAIR_CANDIDATES swaps each (default 300), each solved
// with REPAIR_MS (default 2000) and its plan replayed: how many deals get
// a fix, after how many swaps and how long. Run with -benchtime=1x;
// REPAIR_LOG=1 prints each deal.
func BenchmarkRepairDeals(b *testing.B) {
	name := os.Getenv("REPAIR_LAYOUT")
	if name == "" {
		name = "L255"
	}
	layout := repairLayout(b, name)
	if slots := envPositive("REPAIR_SLOTS", 0); slots > 0 {
		layout = withSlots(b, layout, slots)
	}
	want := envPositive("REPAIR_DEALS", 5)
	maxCand := envPositive("REPAIR_CANDIDATES", 300)
	budget := solver.Budget{MaxMS: int64(envPositive("REPAIR_MS", 2000))}
	for range b.N {
		fixed, deals := 0, 0
		var ms, tried []float64
		for k := 0; deals < want; k++ {
			d, err := Deal(rand.New(rand.NewPCG(1, uint64(k))), layout, 0)
			if err != nil {
				b.Fatal(err)
			}
			res, err := Solve(context.Background(), d, solver.Options{Budget: solver.Budget{MaxMS: 20_000}})
			if err != nil {
				b.Fatal(err)
			}
			if res.Verdict != solver.Unsolvable {
				continue
			}
			deals++
			start := time.Now()
			rep, err := repair.Run(context.Background(), kind{}, repair.Request{Level: d, MaxEdits: 1, Count: 1,
				MaxCandidates: maxCand, Budget: budget}, 0, 0, nil)
			if err != nil {
				b.Fatal(err)
			}
			took := float64(time.Since(start).Milliseconds())
			line := fmt.Sprintf("%s deal %d: %d swaps tried in %.0f ms, rejected %v", name, k, rep.Tried, took, rep.Rejected)
			if len(rep.Fixes) > 0 {
				fixed++
				ms, tried = append(ms, took), append(tried, float64(rep.Tried))
				line += ": fixed by " + rep.Fixes[0].Desc
			}
			if os.Getenv("REPAIR_LOG") != "" {
				fmt.Fprintln(os.Stderr, line)
			}
		}
		b.Logf("%s: %d of %d unsolvable deals fixed by a swap within %d swaps; to the fix: median %.0f ms, %.0f swaps (max %.0f ms)",
			name, fixed, deals, maxCand, medianOf(ms), medianOf(tried), maxOf(ms))
		b.ReportMetric(float64(fixed)/float64(deals), "fixed-share")
	}
}

// repairLayout is a layout of benchLayout, or T120: a one-tower layout
// like L255 of 120 tiles and 10 types.
func repairLayout(tb testing.TB, name string) *Level {
	if name != "T120" {
		return benchLayout(tb, name)
	}
	g, err := Generate(rand.New(rand.NewPCG(1, 0x1a70)), GenerateOpts{Tiles: 120, Layers: 12, Types: 10, Mounds: 1})
	if err != nil {
		tb.Fatal(err)
	}
	return g.Level
}

func maxOf(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	return slices.Max(x)
}
