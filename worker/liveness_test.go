package worker_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/puzzled/puzzled/internal/waittest"
	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/queue"
	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/store"
	"github.com/puzzled/puzzled/store/storetest"
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
	if err := e.st.MarkRunning(t.Context(), store.RunOf(me, jobs[0]), jobs[0].ID); err != nil {
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

// A task whose job another live worker holds is not done with: asynq
// retries it, and once that worker lets the job go (its run failed to
// write its result, say), a retry runs it. Dropped, as it was, the job
// sat running with no owner and no task until the dispatcher's stale
// check a minute later (issue 30 item 1). The worker here has no
// dispatcher: only the retry can run the job.
func TestTaskOfAJobHeldElsewhereIsRetried(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	job, err := e.st.CreateJob(t.Context(), store.JobParams{Level: storetest.Level("sleep", []byte(`{"kind":"sleep","ms":1,"n":7}`)),
		Priority: jobtype.Interactive, MaxAttempts: 3})
	if err != nil {
		t.Fatal(err)
	}
	const other = "other-live-worker"
	if err := e.st.Beat(t.Context(), other, "elsewhere", 1, time.Minute); err != nil {
		t.Fatal(err)
	}
	if started, err := e.st.StartJobs(t.Context(), []int64{job.ID}, store.Owner{ID: other, DeadAfter: time.Hour}); err != nil || len(started) != 1 {
		t.Fatalf("the other worker's start: %v, %v", started, err)
	}

	w := worker.New(worker.Config{Store: e.st, Registry: solver.NewRegistry(e.kind)})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- worker.Serve(ctx, w, worker.ServeConfig{Redis: e.redis, Concurrency: 1}) }()
	defer func() { cancel(); <-done }()
	if _, err := e.qc.Enqueue(t.Context(), job.ID, jobtype.Interactive, 0); err != nil {
		t.Fatal(err)
	}
	waittest.WaitFor(t, time.Minute, "the task to wait for a retry", func() bool {
		info, err := e.qc.Inspector().GetQueueInfo(queue.Interactive)
		return err == nil && info.Retry == 1
	})
	if j, err := e.st.GetJob(t.Context(), job.ID); err != nil || j.State != jobtype.Running || j.Attempts != 1 {
		t.Fatalf("while held elsewhere: %+v, %v; want running, the holder's one attempt", j, err)
	}

	if ids, _, err := e.st.ReleaseStrays(t.Context(), other, store.Held{}); err != nil || len(ids) != 1 {
		t.Fatalf("the holder lets go: %v, %v", ids, err)
	}
	waittest.WaitFor(t, time.Minute, "the retried task to run the job", func() bool {
		j, err := e.st.GetJob(t.Context(), job.ID)
		return err == nil && j.State == jobtype.Done
	})
}

// SlowAfter is what a bundle's task timeout allows per job.
func TestBundleTimeoutCoversSlowAfter(t *testing.T) {
	if worker.SlowAfter > queue.BundleJobSlack {
		t.Fatalf("worker.SlowAfter %v > queue.BundleJobSlack %v", worker.SlowAfter, queue.BundleJobSlack)
	}
}

// A worker whose bundle was taken over while it searched (it was judged
// dead, but its search went on) has its result refused and says so; the
// job stays the new owner's, whose result is the one stored (issue 30
// item 4). The worker's watcher polls once an hour here, so that it does
// not stop the search first as it would on a takeover it sees.
func TestFencedWorkersResultIsRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.batch(t, []int64{0}, -1, 0)
	e.startWorker(t, 1, neverSlow, func(c *worker.Config) { c.CancelPoll = time.Hour })
	conn, err := pgx.Connect(t.Context(), e.url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	waittest.WaitFor(t, time.Minute, "the worker to claim the bundle", func() bool {
		var n int
		err := conn.QueryRow(t.Context(), `SELECT count(*) FROM bundles WHERE batch_id = $1 AND worker_id IS NOT NULL`, id).Scan(&n)
		return err == nil && n == 1
	})
	// Another worker finds the owner's beat too old and claims the bundle.
	taker := store.Owner{ID: "taker", DeadAfter: time.Microsecond}
	jobs, err := e.st.ClaimBundle(t.Context(), id, 0, 1, taker)
	if err != nil || len(jobs) != 1 {
		t.Fatalf("takeover: %+v, %v", jobs, err)
	}
	e.kind.openGate()
	waittest.WaitFor(t, time.Minute, "the stale result to be refused", func() bool {
		return strings.Contains(e.logs.String(), "results refused: a newer run holds the jobs (this run was fenced)")
	})
	if rows := e.jobs(t, id); rows[0].State != jobtype.Queued || rows[0].Results != 0 {
		t.Fatalf("after the stale run: %+v; want the job queued (the taker's), no result", rows[0])
	}
	res := solver.Result{Verdict: solver.Solved, Value: solver.Int64(0), Optimal: true}
	stored, fenced, err := e.st.FinishJobs(t.Context(), []store.Finish{{JobID: jobs[0].ID, Run: store.RunOf(taker.ID, jobs[0]),
		SolverVersion: "1", Result: res}})
	if err != nil || !stored[jobs[0].ID] || len(fenced) != 0 {
		t.Fatalf("the taker's result: stored %v, fenced %v, %v", stored, fenced, err)
	}
	checkAllDoneOnce(t, e.jobs(t, id), 1)
}
