package store_test

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/store"
	"github.com/puzzled/puzzled/store/storetest"
)

// TestReportAndStatsFromRollups finishes the jobs of a batch with varied
// verdicts, solve times, nodes and scores, in statements of several sizes
// with compactions between them, and checks that the report and the
// stats, read from the rollups, match what the jobs themselves say: the
// same counts, percentiles within the histograms' 4.43 %, the same
// unsolvable, unknown and failed lists, the same ten slowest and hardest.
func TestReportAndStatsFromRollups(t *testing.T) {
	t.Parallel()
	st, ctx := setup(t)
	cached := twoends("77,1")
	run(t, st, mustCreateJob(t, st, cached, "v").ID, "v", solved(1)) // a definitive result the batch reuses
	const n = 400
	levels := make([]store.Level, n)
	for i := range levels {
		levels[i] = twoends(fmt.Sprintf("%d,2", i))
	}
	levels[5] = cached
	before := time.Now()
	id, err := st.CreateBatch(ctx, store.BatchParams{Levels: levels, Priority: "bulk", MaxAttempts: 3,
		Versions: map[string]string{"twoends": "v"}})
	if err != nil {
		t.Fatal(err)
	}
	var jobs []int64
	if err := st.BatchResults(ctx, id, func(r store.BatchResult) error {
		jobs = append(jobs, r.JobID)
		return nil
	}); err != nil {
		t.Fatal(err)
	}

	runs, err := storetest.ClaimBatch(ctx, st, id, n)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 14))
	type outcome struct {
		verdict    solver.Verdict
		ms, nodes  int64
		score      int
		randomRate float64
		failed     bool
	}
	out := make([]outcome, n)
	var finishes []store.Finish
	flush := func() {
		t.Helper()
		if _, _, err := st.FinishJobs(ctx, finishes); err != nil {
			t.Fatal(err)
		}
		finishes = finishes[:0]
		if _, err := st.CompactCounts(ctx, 1000); err != nil {
			t.Fatal(err)
		}
	}
	for i, jobID := range jobs {
		if i == 5 {
			continue // cached at submission
		}
		o := outcome{verdict: []solver.Verdict{solver.Solved, solver.Solved, solver.Unsolvable, solver.Unknown}[r.IntN(4)],
			ms: int64(math.Exp(r.NormFloat64()*2 + 3)), nodes: int64(r.IntN(1_000_000))}
		if i%37 == 0 {
			o.failed = true
			if err := st.FailJob(ctx, runs[jobID], jobID, "boom", true); err != nil {
				t.Fatal(err)
			}
			out[i] = o
			continue
		}
		res := solver.Result{Verdict: o.verdict, Stats: solver.Stats{ElapsedMS: o.ms, Nodes: o.nodes}}
		if o.verdict == solver.Solved {
			res.Value, res.Optimal, res.Plan = solver.Int64(1), true, json.RawMessage(`"L"`)
			if i%3 == 0 {
				o.score, o.randomRate = 1+r.IntN(10), r.Float64()
				res.Difficulty = json.RawMessage(fmt.Sprintf(`{"score":%d,"random":{"rate":%g}}`, o.score, o.randomRate))
			}
		}
		out[i] = o
		finishes = append(finishes, store.Finish{JobID: jobID, Run: runs[jobID], SolverVersion: "v", Result: res})
		if len(finishes) == 1+i%50 {
			flush()
		}
	}
	flush()

	rep, err := st.BatchReport(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var ms, nodes []float64
	verdicts := map[string]int{}
	var unsolvable, unknown, failed []int64
	var slow, hard []int
	scores := [10]int{}
	for i, o := range out {
		switch {
		case i == 5:
			verdicts["solved"]++
			continue
		case o.failed:
			failed = append(failed, jobs[i])
			continue
		}
		verdicts[string(o.verdict)]++
		ms, nodes = append(ms, float64(o.ms)), append(nodes, float64(o.nodes))
		slow = append(slow, i)
		switch o.verdict {
		case solver.Unsolvable:
			unsolvable = append(unsolvable, jobs[i])
		case solver.Unknown:
			unknown = append(unknown, jobs[i])
		}
		if o.score > 0 {
			hard = append(hard, i)
			scores[o.score-1]++
		}
	}
	if rep.Jobs != n || rep.Cached != 1 || rep.States["failed"] != len(failed) || fmt.Sprint(rep.Verdicts) != fmt.Sprint(verdicts) {
		t.Errorf("counts: %d jobs, %d cached, states %v, verdicts %v; want %d, 1, %d failed, %v",
			rep.Jobs, rep.Cached, rep.States, rep.Verdicts, n, len(failed), verdicts)
	}
	near := func(name string, got, want float64) {
		if math.Abs(got-want) > (math.Exp2(1.0/16)-1)*want+1e-9 && !(want < 1 && got == 0) {
			t.Errorf("%s = %.2f, exact %.2f", name, got, want)
		}
	}
	near("solve ms p50", rep.SolveMS.P50, exactPercentile(ms, 0.5))
	near("solve ms p95", rep.SolveMS.P95, exactPercentile(ms, 0.95))
	near("solve ms p99", rep.SolveMS.P99, exactPercentile(ms, 0.99))
	near("nodes p50", rep.Nodes.P50, exactPercentile(nodes, 0.5))
	near("nodes p95", rep.Nodes.P95, exactPercentile(nodes, 0.95))
	ids := func(ls []store.ReportLevel) []int64 {
		var out []int64
		for _, l := range ls {
			out = append(out, l.JobID)
		}
		return out
	}
	for _, l := range []struct {
		name      string
		got, want []int64
	}{{"unsolvable", ids(rep.Unsolvable), unsolvable}, {"unknown", ids(rep.Unknown), unknown}, {"failed", ids(rep.Failed), failed}} {
		if !slices.Equal(l.got, l.want) {
			t.Errorf("%s list %v, want %v", l.name, l.got, l.want)
		}
	}
	slices.SortStableFunc(slow, func(a, b int) int { return int(out[b].ms - out[a].ms) })
	var wantSlow []int64
	for _, i := range slow[:10] {
		wantSlow = append(wantSlow, jobs[i])
	}
	if got := ids(rep.Slowest); !slices.Equal(got, wantSlow) {
		t.Errorf("slowest %v, want %v", got, wantSlow)
	}
	slices.SortStableFunc(hard, func(a, b int) int {
		if out[a].score != out[b].score {
			return out[b].score - out[a].score
		}
		return int(math.Copysign(1, out[a].randomRate-out[b].randomRate))
	})
	var wantHard []int64
	for _, i := range hard[:10] {
		wantHard = append(wantHard, jobs[i])
	}
	if got := ids(rep.Difficulty.Hardest); !slices.Equal(got, wantHard) {
		t.Errorf("hardest %v, want %v", got, wantHard)
	}
	if rep.Difficulty.Histogram != scores {
		t.Errorf("score histogram %v, want %v", rep.Difficulty.Histogram, scores)
	}

	// The stats of a window that starts and ends within an hour count the
	// batch's jobs (and the single job before it) as the report does.
	since, until := before.Add(-time.Hour-17*time.Minute), time.Now().Add(43*time.Minute)
	stats, err := st.Stats(ctx, since, until, nil)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Jobs != n+1 || stats.Verdicts["solved"] != verdicts["solved"]+1 || stats.States["failed"] != len(failed) {
		t.Errorf("stats: %d jobs, verdicts %v, states %v; want %d, solved %d, failed %d",
			stats.Jobs, stats.Verdicts, stats.States, n+1, verdicts["solved"]+1, len(failed))
	}
	near("stats solve ms p50", stats.SolveMS.P50, exactPercentile(append(ms, 0), 0.5))

	// Every job is of project 1: the stats of that project (its batch's
	// counters, and its single job read from jobs and results) say all
	// that the rollups do; another project's count nothing.
	scoped, err := st.Stats(ctx, since, until, []int64{1})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(scoped.Figures, stats.Figures) {
		t.Errorf("project 1's stats %+v, want the rollups' %+v", scoped.Figures, stats.Figures)
	}
	if other, err := st.Stats(ctx, since, until, []int64{2}); err != nil || other.Jobs != 0 {
		t.Errorf("project 2's stats: %d jobs, %v; want none", other.Jobs, err)
	}
}

// exactPercentile is percentile_cont of values.
func exactPercentile(values []float64, q float64) float64 {
	v := slices.Clone(values)
	slices.Sort(v)
	pos := q * float64(len(v)-1)
	lo := int(math.Floor(pos))
	if lo+1 >= len(v) {
		return v[lo]
	}
	return v[lo] + (pos-float64(lo))*(v[lo+1]-v[lo])
}
