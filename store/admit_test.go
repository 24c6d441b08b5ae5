package store_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/puzzled/puzzled/store"
)

// admitAll admits every bulk task that waits, as a dispatcher with room
// for all of them would.
func admitAll(t *testing.T, st *store.Store) ([]store.LiveJob, []store.LiveBatch) {
	t.Helper()
	jobs, batches, ok, err := st.AdmitBulk(t.Context(), "", func(demand []store.BulkDemand) map[int64]int {
		all := map[int64]int{}
		for _, d := range demand {
			all[d.Project] = d.Waiting
		}
		return all
	})
	if err != nil || !ok {
		t.Fatalf("AdmitBulk: ok %v, %v", ok, err)
	}
	return jobs, batches
}

func bulkBatch(t *testing.T, st *store.Store, project int64, n, from int) int64 {
	t.Helper()
	levels := make([]store.Level, n)
	for i := range levels {
		levels[i] = twoends(fmt.Sprint(from + i))
	}
	id, err := st.CreateBatch(t.Context(), store.BatchParams{Levels: levels, Priority: "bulk", MaxAttempts: 3, Project: project})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestAdmitBulk: bulk work reaches the dispatcher only as admitted, in the
// numbers share gives each project, jobs that travel alone before
// bundles; the demand counts what is in flight and what waits, with the
// project's weight and cap; and one dispatcher admits at a time.
func TestAdmitBulk(t *testing.T) {
	t.Parallel()
	st, ctx := setup(t)
	a, err := st.CreateProject(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	b, err := st.CreateProject(ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SetShare(ctx, b.ID, store.Share{Weight: 3, Cap: 5}); err != nil {
		t.Fatal(err)
	}
	batchA := bulkBatch(t, st, a.ID, 10*store.BundleSize, 0)
	batchB := bulkBatch(t, st, b.ID, 2*store.BundleSize, 10_000)
	var alone []int64
	for i := range 3 {
		j, err := st.CreateJob(ctx, store.JobParams{Level: twoends(fmt.Sprint(20_000 + i)), Priority: "bulk",
			MaxAttempts: 3, SolverVersion: "v", Project: a.ID})
		if err != nil {
			t.Fatal(err)
		}
		alone = append(alone, j.ID)
	}

	// Nothing bulk is dispatched before it is admitted.
	if jobs, _ := st.ClaimLiveJobs(ctx, "", time.Now().Add(time.Hour), 100); len(jobs) != 0 {
		t.Fatalf("ClaimLiveJobs before admission: %+v, want none", jobs)
	}
	batches, err := st.ClaimLiveBatches(ctx, "", time.Now().Add(time.Hour), 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, lb := range batches {
		if len(lb.Bundles) != 0 {
			t.Fatalf("ClaimLiveBatches before admission: %+v, want no bundle", batches)
		}
	}

	want := []store.BulkDemand{
		{Project: a.ID, Weight: 1, InFlight: 0, Waiting: 13},
		{Project: b.ID, Weight: 3, Cap: 5, InFlight: 0, Waiting: 2},
	}
	var got []store.BulkDemand
	jobs, batches, ok, err := st.AdmitBulk(ctx, "w1", func(d []store.BulkDemand) map[int64]int {
		got = d
		// Another dispatcher's try meanwhile admits nothing.
		j, bs, ok2, err := st.AdmitBulk(ctx, "w2", func([]store.BulkDemand) map[int64]int {
			t.Error("second dispatcher got to share")
			return nil
		})
		if ok2 || err != nil || len(j)+len(bs) != 0 {
			t.Errorf("concurrent AdmitBulk: ok %v, %v, %d jobs, %d batches", ok2, err, len(j), len(bs))
		}
		return map[int64]int{a.ID: 5, b.ID: 1}
	})
	if err != nil || !ok {
		t.Fatalf("AdmitBulk: ok %v, %v", ok, err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("demand %+v, want %+v", got, want)
	}
	var ids []int64
	for _, j := range jobs {
		ids = append(ids, j.ID)
	}
	if !slices.Equal(ids, alone) {
		t.Errorf("admitted jobs %v, want the three alone %v", ids, alone)
	}
	bundles := map[int64][]int32{}
	for _, lb := range batches {
		bundles[lb.BatchID] = lb.Bundles
	}
	wantBundles := map[int64][]int32{batchA: {0, store.BundleSize}, batchB: {0}}
	if fmt.Sprint(bundles) != fmt.Sprint(wantBundles) {
		t.Errorf("admitted bundles %v, want %v", bundles, wantBundles)
	}

	// What is admitted is dispatched again when stale, and only that.
	batches, err = st.ClaimLiveBatches(ctx, "", time.Now().Add(time.Hour), 100)
	if err != nil {
		t.Fatal(err)
	}
	bundles = map[int64][]int32{}
	for _, lb := range batches {
		bundles[lb.BatchID] = lb.Bundles
	}
	if fmt.Sprint(bundles) != fmt.Sprint(wantBundles) {
		t.Errorf("stale bundles %v, want %v", bundles, wantBundles)
	}
	if jobs, _ := st.ClaimLiveJobs(ctx, "", time.Now().Add(time.Hour), 100); len(jobs) != 3 {
		t.Errorf("stale jobs: %d, want the 3 admitted", len(jobs))
	}

	// The next demand counts them in flight.
	want = []store.BulkDemand{
		{Project: a.ID, Weight: 1, InFlight: 5, Waiting: 8},
		{Project: b.ID, Weight: 3, Cap: 5, InFlight: 1, Waiting: 1},
	}
	_, _, _, err = st.AdmitBulk(ctx, "w1", func(d []store.BulkDemand) map[int64]int {
		got = d
		return nil
	})
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("demand %+v (%v), want %+v", got, err, want)
	}
	// A finished bundle leaves the flight.
	claimed, err := st.ClaimBundle(ctx, batchB, 0, store.BundleSize, store.Owner{ID: "w", DeadAfter: time.Minute})
	if err != nil || len(claimed) != store.BundleSize {
		t.Fatalf("ClaimBundle: %d jobs, %v", len(claimed), err)
	}
	// A bundle a worker holds runs.
	_, _, _, err = st.AdmitBulk(ctx, "w1", func(d []store.BulkDemand) map[int64]int {
		got = d
		return nil
	})
	if err != nil || len(got) != 2 || got[1].Running != 1 || got[0].Running != 0 {
		t.Fatalf("demand with B's bundle held: %+v (%v), want B running 1", got, err)
	}
	if _, err := st.CancelBatch(ctx, batchB); err != nil {
		t.Fatal(err)
	}
	_, _, _, err = st.AdmitBulk(ctx, "w1", func(d []store.BulkDemand) map[int64]int {
		got = d
		return nil
	})
	if err != nil || len(got) != 1 || got[0].Project != a.ID {
		t.Fatalf("demand after B's batch ended: %+v (%v), want A's only", got, err)
	}
}

// TestAdmissionLockOutlivesNoStalledHolder: a dispatcher that stops in the
// middle of its admission transaction (a process cut off from PostgreSQL
// there, which keeps its connection open) holds the admission lock only
// until PostgreSQL ends its idle session, about 5 s; then another
// dispatcher admits. Without the bound the others skip their turn for as
// long as the connection lives: hours.
func TestAdmissionLockOutlivesNoStalledHolder(t *testing.T) {
	t.Parallel()
	st, ctx := setup(t)
	bulkBatch(t, st, store.DefaultProject, store.BundleSize, 0)
	stalled, resume := make(chan struct{}), make(chan struct{})
	var once sync.Once
	defer once.Do(func() { close(resume) }) // on failure too: the store's Close waits for it
	firstDone := make(chan error, 1)
	go func() {
		_, _, _, err := st.AdmitBulk(ctx, "cut-off", func([]store.BulkDemand) map[int64]int {
			close(stalled)
			<-resume // the process goes no further while the lock is held
			return nil
		})
		firstDone <- err
	}()
	<-stalled
	start := time.Now()
	for {
		_, batches, ok, err := st.AdmitBulk(ctx, "live", func(d []store.BulkDemand) map[int64]int {
			return map[int64]int{d[0].Project: d[0].Waiting}
		})
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			if len(batches) != 1 {
				t.Fatalf("admitted %d batches, want the one", len(batches))
			}
			break
		}
		if time.Since(start) > time.Minute {
			t.Fatal("the stalled dispatcher still holds the admission lock after a minute")
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("admitted %s after the other dispatcher stalled", time.Since(start).Round(100*time.Millisecond))
	once.Do(func() { close(resume) })
	if err := <-firstDone; err == nil {
		t.Fatal("the stalled dispatcher's transaction committed after its session was ended")
	}
}
