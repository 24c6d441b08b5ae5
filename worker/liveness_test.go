package worker_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/puzzled/puzzled/queue"
	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/store"
	"github.com/puzzled/puzzled/worker"
)

// A job that PostgreSQL says a live worker holds, but that the worker does
// not run (its handler failed to write, or panicked), is let go at the
// worker's next beat: otherwise every other worker would refuse it for as
// long as this one lives.
func TestWorkerLetsGoOfJobsItDoesNotRun(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.batch(t, []int64{0}, -1)
	const me = "stray-test-worker"
	jobs, err := e.st.ClaimBundle(t.Context(), id, 0, 1, store.Owner{ID: me, DeadAfter: worker.DeadAfter})
	if err != nil || len(jobs) != 1 {
		t.Fatalf("claim: %v, %v", jobs, err)
	}
	if err := e.st.MarkRunning(t.Context(), jobs[0].ID); err != nil {
		t.Fatal(err)
	}
	// The same worker id comes up, without a dispatcher (nothing enqueues
	// the job): only the beat can release it.
	w := worker.New(worker.Config{Store: e.st, Registry: solver.NewRegistry(e.kind), ID: me})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- worker.Serve(ctx, w, worker.ServeConfig{Redis: e.redis, Concurrency: 1}) }()
	defer func() { cancel(); <-done }()

	conn, err := pgx.Connect(t.Context(), e.url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	deadline := time.Now().Add(time.Minute)
	for {
		var owner *string
		if err := conn.QueryRow(t.Context(), `SELECT worker_id FROM jobs WHERE id = $1`, jobs[0].ID).Scan(&owner); err != nil {
			t.Fatal(err)
		}
		if owner == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("job still held by %s", *owner)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// SlowAfter is what a bundle's task timeout allows per job.
func TestBundleTimeoutCoversSlowAfter(t *testing.T) {
	if worker.SlowAfter > queue.BundleJobSlack {
		t.Fatalf("worker.SlowAfter %v > queue.BundleJobSlack %v", worker.SlowAfter, queue.BundleJobSlack)
	}
}
