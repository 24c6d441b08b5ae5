package worker_test

import (
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/sheep"
	"github.com/puzzled/puzzled/store"
	"github.com/puzzled/puzzled/store/storetest"
)

// TestOneJobSearchesOnEveryCore: an idle worker gives its one job the
// machine's cores (solver.Options.Threads). Deal 279 of the game's layout
// capture-264, which sheep's own search leaves unknown after 60 s, is then
// won by the second search that runs beside it (solver/sheep
// portfolio.go, about 3M nodes), and the stored result says so; on a
// machine of one core the job searches alone (and leaves it unknown).
func TestOneJobSearchesOnEveryCore(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	layout, err := os.ReadFile("../solver/sheep/testdata/capture-264.json")
	if err != nil {
		t.Fatal(err)
	}
	l, err := sheep.Parse(layout)
	if err != nil {
		t.Fatal(err)
	}
	deal, err := sheep.DealNumber(l, 1, 279, 0)
	if err != nil {
		t.Fatal(err)
	}
	id, err := e.st.CreateBatch(t.Context(), store.BatchParams{Levels: []store.Level{storetest.Level("sheep", deal.Canonical())},
		Priority: jobtype.Bulk, MaxAttempts: 1, Budget: solver.Budget{MaxMS: 60_000}, Versions: map[string]string{"sheep": sheep.New().Version()}})
	if err != nil {
		t.Fatal(err)
	}
	serveRealKinds(t, e, -1)
	e.waitBatch(t, id, 3*time.Minute)
	var res *store.Result
	if err := e.st.BatchResults(t.Context(), id, func(r store.BatchResult) error {
		res = r.Result
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	oneCore := min(runtime.NumCPU(), runtime.GOMAXPROCS(0)) < 2
	if res == nil || (res.Verdict != solver.Solved && !oneCore) {
		t.Fatalf("result %+v, want solved", res)
	}
	want := "helper"
	if oneCore {
		want = "" // no second search
	}
	if got, _ := res.Details["portfolio"].(string); got != want {
		t.Fatalf("details %v: decided by %q, want %q", res.Details, got, want)
	}
	t.Logf("solved in %d ms, %d nodes of both searches", res.Stats.ElapsedMS, res.Stats.Nodes)
}
