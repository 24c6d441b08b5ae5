package columns

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/puzzled/puzzled/solver"
)

// BenchmarkTuneEval is the tuning harness behind tunedWeights: it plays
// the tuning levels (tuneLongSeed, disjoint from BenchmarkLong's
// benchLongSeed) with one beam round of a fixed width (deterministic, no
// clock) and prints, for the goal's weights and for each weight halved and
// doubled, the goals met and the geometric mean of best_score + 1. Pick
// the goal with PUZZLED_TUNE_GOAL (default survive; score and survive
// share weights), the level count with PUZZLED_TUNE_LEVELS (default 24)
// the width with PUZZLED_TUNE_WIDTH (default 64) and the base weights
// with PUZZLED_TUNE_BASE ("score,threat,pair,jewels,danger,dead,bump,horizon,chain");
// PUZZLED_TUNE_ONLY="score,pair" varies only those weights. Run with
// -benchtime=1x.
func BenchmarkTuneEval(b *testing.B) {
	goal := GoalSurvive
	if g := envString("PUZZLED_TUNE_GOAL"); g != "" {
		goal = g
	}
	n := envInt(b, "PUZZLED_TUNE_LEVELS", 24)
	width := envInt(b, "PUZZLED_TUNE_WIDTH", 64)
	var levels []*Level
	for _, l := range longLevels(b, tuneLongSeed, 4*n) {
		switch {
		case l.Goal.Type == goal:
			levels = append(levels, l)
		case goal == GoalSurvive && l.Goal.Type == GoalScore:
			levels = append(levels, withGoal(b, l, goal, 0))
		}
	}
	levels = levels[:min(n, len(levels))]
	base := tunedWeights(goal)
	if s := envString("PUZZLED_TUNE_BASE"); s != "" {
		// score,threat,pair,jewels,danger,dead,bump,horizon,chain
		if _, err := fmt.Sscanf(s, "%d,%d,%d,%d,%d,%d,%d,%d,%d", &base.score, &base.threat, &base.pair,
			&base.jewels, &base.danger, &base.dead, &base.bump, &base.horizon, &base.chain); err != nil {
			b.Fatalf("PUZZLED_TUNE_BASE: %v", err)
		}
	}
	for range b.N {
		try := func(name string, w weights) {
			met, logSum := 0, 0.0
			for _, l := range levels {
				found, best := tuneRun(b, l, width, w)
				if found {
					met++
				}
				logSum += math.Log(float64(best + 1))
			}
			fmt.Printf("%-14s met %2d/%d  geo-mean best %.1f  %+v\n", name, met, len(levels),
				math.Exp(logSum/float64(len(levels)))-1, w)
		}
		try("tuned", base)
		try("classic", classicWeights(goal))
		fields := []struct {
			name string
			f    func(*weights) *int64
		}{
			{"score", func(w *weights) *int64 { return &w.score }},
			{"threat", func(w *weights) *int64 { return &w.threat }},
			{"pair", func(w *weights) *int64 { return &w.pair }},
			{"jewels", func(w *weights) *int64 { return &w.jewels }},
			{"danger", func(w *weights) *int64 { return &w.danger }},
			{"dead", func(w *weights) *int64 { return &w.dead }},
			{"bump", func(w *weights) *int64 { return &w.bump }},
			{"horizon", func(w *weights) *int64 { return &w.horizon }},
			{"chain", func(w *weights) *int64 { return &w.chain }},
		}
		only := envString("PUZZLED_TUNE_ONLY") // comma-separated weight names
		for _, fd := range fields {
			if only != "" && !slices.Contains(strings.Split(only, ","), fd.name) {
				continue
			}
			for _, mul := range []float64{0.5, 2} {
				w := base
				p := fd.f(&w)
				*p = int64(math.Round(float64(*p) * mul))
				try(fmt.Sprintf("%s×%.1f", fd.name, mul), w)
			}
		}
	}
}

// tuneRun plays one beam round of width with weights w.
func tuneRun(b *testing.B, l *Level, width int, w weights) (found bool, best int64) {
	m, err := solver.NewMeter(context.Background(), solver.Options{})
	if err != nil {
		b.Fatal(err)
	}
	bm := newBeam(l, m, width, evaluator{g: &l.geom, goal: l.Goal.Type, w: w})
	bm.run(func() {})
	best = bm.best
	if bm.found {
		best = max(best, lineScore(l, bm.goalLine))
	}
	return bm.found, best
}
