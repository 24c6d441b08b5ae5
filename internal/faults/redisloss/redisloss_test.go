// Package redisloss_test holds the fault tests of Redis's losses: its data
// flushed while a batch and a long search run, and a partition (the server
// stopped) during a worker's shutdown, against a real puzzled stack on
// servers of the test's own (internal/faults/faultstest), with every job
// checked to end with exactly one result and none started twice.
// PostgreSQL's outages are internal/faults/outage.
//
// The tests run one at a time (no t.Parallel): each starts a whole stack
// (PostgreSQL, Redis, serve, workers and their solve processes), and four
// stacks at once beside two CPU hogs on a 2-CPU CI machine made each test
// five to fifty times slower than alone, past go test's ten-minute limit
// for a package; the fault tests are split into small packages for the
// same reason.
package redisloss_test

import (
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/puzzled/puzzled/api/client"
	"github.com/puzzled/puzzled/internal/e2etest"
	"github.com/puzzled/puzzled/internal/envtest"
	"github.com/puzzled/puzzled/internal/faults/faultstest"
	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/solver"
)

func TestMain(m *testing.M) { os.Exit(envtest.Run(m)) }

func TestChaosRedisFlushMidBatch(t *testing.T) {
	s, _, redis := faultstest.OwnStack(t, "PUZZLED_STALE_AFTER=2s", "PUZZLED_CONCURRENCY=2")
	c := client.New(s.URL) // a checked client spends seconds on each batch body (the API's own tests check it)
	id := faultstest.TwoendsBatch(t, c, faultstest.BatchLevels, 4000)
	b := faultstest.WaitDone(t, c, id, 0.1, 2*time.Minute)
	if b.Done == 1 {
		t.Fatal("batch finished before the flush; make the jobs heavier")
	}
	flushAll(t, redis.Addr())
	t.Logf("FLUSHALL at %.0f%% done", 100*b.Done)
	faultstest.WaitDone(t, c, id, 1, 3*time.Minute)
	faultstest.CheckOneResultEach(t, s.DatabaseURL, id, faultstest.BatchLevels)
}

func flushAll(t *testing.T, addr string) {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	if err := rdb.FlushAll(t.Context()).Err(); err != nil {
		t.Fatal(err)
	}
}

// Issue 13 item 4: a Redis flush neither stalls work nor starts a job twice.

func TestChaosFlushAllResumesWithinSecondsAndStartsNoJobTwice(t *testing.T) {
	// The stale re-check stays at its default minute: the resume must come
	// from noticing the flush.
	s, _, redis := faultstest.OwnStack(t, "PUZZLED_CHECKPOINT_EVERY=250ms", "PUZZLED_CONCURRENCY=2", faultstest.NoTakeover)
	other := s.StartWorker(t)
	conn := faultstest.DBConn(t, s.DatabaseURL)
	c := client.New(s.URL)
	long, err := c.CreateJob(t.Context(), faultstest.HardSheepLevel(t).Canonical(), jobtype.Options{Budget: solver.Budget{MaxMS: 600_000}})
	if err != nil {
		t.Fatal(err)
	}
	faultstest.WaitJob(t, c, long.ID, time.Minute, "checkpointed", faultstest.Checkpointed(1))
	const n = faultstest.BatchLevels
	batch := faultstest.TwoendsBatch(t, c, n, 4000)
	if b := faultstest.WaitDone(t, c, batch, 0.1, 2*time.Minute); b.Done == 1 {
		t.Fatal("batch finished before the flush; make the jobs heavier")
	}
	flushAll(t, redis.Addr())
	// The batch's jobs no worker holds now can only run once the flush is
	// noticed and their tasks enqueued again.
	var flushed time.Time
	var waiting []int64
	if err := conn.QueryRow(t.Context(), `SELECT now(), coalesce(array_agg(id), '{}') FROM jobs
		WHERE batch_id = $1 AND state = 'queued' AND worker_id IS NULL`, batch).Scan(&flushed, &waiting); err != nil {
		t.Fatal(err)
	}
	if len(waiting) == 0 {
		t.Fatal("no job waiting at the flush")
	}
	var resumed time.Time
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var first *time.Time
		if err := conn.QueryRow(t.Context(), `SELECT min(finished_at) FROM jobs WHERE id = ANY ($1) AND state = 'done'`,
			waiting).Scan(&first); err != nil {
			t.Fatal(err)
		}
		if first != nil {
			resumed = *first
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("work did not resume after the flush")
		}
		time.Sleep(50 * time.Millisecond)
	}

	faultstest.WaitDone(t, c, batch, 1, 3*time.Minute)
	faultstest.CheckOneResultEach(t, s.DatabaseURL, batch, n)
	done := faultstest.WaitFinished(t, c, long.ID)
	if done.Attempts != 1 || done.State != jobtype.Done {
		t.Fatalf("the job running at the flush: %+v; want done in its one attempt", done)
	}
	var twice int
	if err := conn.QueryRow(t.Context(), `SELECT count(*) FROM jobs WHERE batch_id = $1 AND attempts > 1`, batch).Scan(&twice); err != nil || twice != 0 {
		t.Fatalf("%d jobs of the batch took more than one attempt (%v)", twice, err)
	}
	for _, w := range []*e2etest.Proc{s.Work, other} {
		if w.HasLog("job canceled while running") || w.HasLog("job taken over by another worker (this worker's heartbeat was late); this run stops") {
			t.Errorf("a worker stopped a run after the flush:\n%s", w.Output())
		}
	}
	// Once at the first use of this Redis, once after the flush.
	const lost = "Redis marker missing (first use, or Redis lost its data): every live job is enqueued again"
	if n := strings.Count(s.Work.Output(), lost) + strings.Count(other.Output(), lost); n != 2 {
		t.Errorf("the workers logged the loss of Redis's data %d times, want 2 (first use, flush)", n)
	}
	t.Logf("FLUSHALL → first waiting job done %v later", resumed.Sub(flushed).Round(10*time.Millisecond))
}

// TestSigtermDuringARedisPartitionEnds: a worker sent SIGTERM while its
// Redis does not answer (the server stopped with SIGSTOP: connections stay
// open, nothing comes back, as in a partition) exits within its shutdown
// deadline instead of waiting on Redis for good (issue 30 item 3), and
// once Redis is back another worker takes its job over and finishes it
// with the uninterrupted result.
func TestSigtermDuringARedisPartitionEnds(t *testing.T) {
	level, want := faultstest.HardSheep(t)
	const deadline = 3 * time.Second
	s, _, redis := faultstest.OwnStack(t, "PUZZLED_CHECKPOINT_EVERY=250ms", "PUZZLED_CONCURRENCY=1",
		"PUZZLED_SHUTDOWN_TIMEOUT="+deadline.String())
	c := client.New(s.URL)
	job, err := c.CreateJob(t.Context(), level, jobtype.Options{Budget: solver.Budget{MaxMS: 600_000}})
	if err != nil {
		t.Fatal(err)
	}
	faultstest.WaitJob(t, c, job.ID, time.Minute, "checkpointed", faultstest.Checkpointed(1))

	pid := redis.PID()
	if pid == 0 {
		t.Fatal("the test's Redis is not a redis-server process (install redis-server; .ci/run does)")
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	resumed := false
	resume := func() {
		if !resumed {
			resumed = true
			_ = syscall.Kill(pid, syscall.SIGCONT)
		}
	}
	t.Cleanup(resume)
	time.Sleep(time.Second) // the worker's Redis calls are under way, and stuck

	s.Work.Signal(syscall.SIGTERM)
	signaled := time.Now()
	select {
	case <-s.Work.Done():
	case <-time.After(time.Minute): // far past the deadline: the worker waits on Redis
		t.Fatalf("the worker still runs a minute after SIGTERM with Redis stopped (deadline %v):\n%s", deadline, s.Work.Output())
	}
	t.Logf("SIGTERM during the partition → worker gone %v later (deadline %v; by the deadline: %v)",
		time.Since(signaled).Round(10*time.Millisecond), deadline, s.Work.HasLog("shutdown deadline passed; exiting with the jobs still held, for other workers to take over"))

	resume()
	s.StartWorker(t)
	done := faultstest.WaitFinished(t, c, job.ID)
	sol, err := c.GetSolution(t.Context(), job.ID)
	if err != nil {
		t.Fatal(err)
	}
	if done.State != jobtype.Done || sol.Verdict != want.Verdict || string(sol.Plan) != string(want.Plan) {
		t.Fatalf("after the partition: %s %s, plan %s; want %s %s", done.State, sol.Verdict, sol.Plan, want.Verdict, want.Plan)
	}
}
