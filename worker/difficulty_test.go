package worker_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/queue"
	"github.com/puzzled/puzzled/solver/difficulty"
	"github.com/puzzled/puzzled/solver/kinds"
	"github.com/puzzled/puzzled/store"
	"github.com/puzzled/puzzled/store/storetest"
	"github.com/puzzled/puzzled/worker"
)

// TestDifficultyStoredWithTheResult runs real kinds through a real worker:
// rated kinds get figures next to their verdict, unrated ones none, and
// the verdict is the solver's.
func TestDifficultyStoredWithTheResult(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	reg := kinds.Registry()
	bodies := []string{
		`{"kind":"zuma","board":"WWRRBBWW","hand":"WRBRW"}`, // solved, rated
		`{"kind":"zuma","board":"WRRBBW","hand":"RB"}`,      // unsolvable, rated
		`{"kind":"zuma","board":"RRWWRRBBRR"}`,              // unlimited: not rated
		`{"kind":"twoends","values":[3,1,2]}`,               // margin and shares
	}
	levels := make([]store.Level, len(bodies))
	versions := map[string]string{}
	for i, b := range bodies {
		lvl, err := reg.Parse([]byte(b))
		if err != nil {
			t.Fatal(err)
		}
		levels[i] = storetest.Level(lvl.Kind(), lvl.Canonical())
		versions[lvl.Kind()] = reg.KindOf(lvl).Version()
	}
	id, err := e.st.CreateBatch(t.Context(), store.BatchParams{Levels: levels, Priority: jobtype.Bulk, MaxAttempts: 3, Versions: versions})
	if err != nil {
		t.Fatal(err)
	}
	serveRealKinds(t, e, 200)
	e.waitBatch(t, id, time.Minute)

	var results []store.BatchResult
	if err := e.st.BatchResults(t.Context(), id, func(r store.BatchResult) error {
		results = append(results, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(results) != len(bodies) {
		t.Fatalf("%d results for %d levels", len(results), len(bodies))
	}
	figs := make([]*difficulty.Figures, len(results))
	for i, r := range results {
		if r.Result == nil {
			t.Fatalf("level %d: no result", i)
		}
		if len(r.Result.Difficulty) == 0 {
			continue
		}
		figs[i] = new(difficulty.Figures)
		if err := json.Unmarshal(r.Result.Difficulty, figs[i]); err != nil {
			t.Fatalf("level %d: %v", i, err)
		}
	}
	if f := figs[0]; f == nil || f.Playouts != 200 || f.Random == nil || f.Score == nil || f.Greedy.Wins == 0 {
		t.Fatalf("solved zuma: figures %+v", f)
	}
	if f := figs[1]; f == nil || f.Random.Wins != 0 || f.Greedy.Wins != 0 || f.Score != nil {
		t.Fatalf("unsolvable zuma: figures %+v", f)
	}
	if figs[2] != nil {
		t.Fatalf("unlimited zuma rated: %+v", figs[2])
	}
	if f := figs[3]; f == nil || f.Margin == nil || *f.Margin != 2 { // 3+1 against 2
		t.Fatalf("twoends: figures %+v", f)
	}

	// The batch report counts the one scored level and lists it as hardest.
	rep, err := e.st.BatchReport(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	rd := rep.Difficulty
	if rd.Rated != 1 || rd.Histogram[*figs[0].Score-1] != 1 || len(rd.Hardest) != 1 ||
		rd.Hardest[0].JobID != results[0].JobID || *rd.Hardest[0].Score != *figs[0].Score {
		t.Fatalf("report difficulty %+v, want the solved zuma level with score %d", rd, *figs[0].Score)
	}
}

// serveRealKinds runs a worker of the real kinds (playouts per player of
// the difficulty figures: -1 none) with a dispatcher of its own, two
// slots, until the test ends.
func serveRealKinds(t *testing.T, e *env, playouts int) {
	t.Helper()
	w := worker.New(worker.Config{Store: e.st, Registry: kinds.Registry(), CancelPoll: 50 * time.Millisecond, DifficultyPlayouts: playouts})
	d := queue.NewDispatcher(queue.DispatcherConfig{Store: e.st, Client: e.qc, Poll: 20 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- worker.Serve(ctx, w, worker.ServeConfig{Redis: e.redis, Concurrency: 2, Dispatcher: d})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
}
