package local_test

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/puzzled/puzzled/api/client"
	"github.com/puzzled/puzzled/internal/e2etest"
	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/solver"
)

// Issue 13 item 4: a dead worker's jobs run again within seconds, ahead of
// the backlog, and a Redis flush neither stalls work nor starts a job twice.
// The tests assert outcomes with generous deadlines and log the figures.

func dbConn(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// workerID is the id a `puzzled work` process beats under.
func workerID(t *testing.T, p *e2etest.Proc) string {
	t.Helper()
	id, _ := p.WaitLog("worker started", time.Minute)["worker_id"].(string)
	if id == "" {
		t.Fatal("worker started without a worker_id")
	}
	return id
}

type holding struct {
	State    jobtype.State
	Owner    *string
	Attempts int32
}

func holdingOf(t *testing.T, conn *pgx.Conn, id int64) holding {
	t.Helper()
	var h holding
	if err := conn.QueryRow(t.Context(), `SELECT state::text, worker_id, attempts FROM jobs WHERE id = $1`, id).
		Scan(&h.State, &h.Owner, &h.Attempts); err != nil {
		t.Fatal(err)
	}
	return h
}

func TestChaosKilledWorkersJobRunsAgainElsewhereWithinSeconds(t *testing.T) {
	t.Parallel()
	level, want := hardSheep(t)
	s, _, _ := ownStack(t, "PUZZLED_CHECKPOINT_EVERY=250ms", "PUZZLED_CONCURRENCY=1")
	other := s.StartWorker(t)
	conn := dbConn(t, s.DatabaseURL)
	c := client.New(s.URL)
	// A large batch queued behind the job: the job must not wait for it.
	const n = 3000
	batch := twoendsBatch(t, c, n, 1000)
	job, err := c.CreateJob(t.Context(), level, jobtype.Options{Budget: solver.Budget{MaxMS: 600_000}})
	if err != nil {
		t.Fatal(err)
	}
	waitJob(t, c, job.ID, time.Minute, "checkpointed", checkpointed(1))

	victim, survivor := s.Work, other
	h := holdingOf(t, conn, job.ID)
	if h.Owner == nil || h.State != jobtype.Running {
		t.Fatalf("running job %+v has no owner", h)
	}
	if *h.Owner == workerID(t, other) {
		victim, survivor = other, s.Work
	}
	survivorID := workerID(t, survivor)
	victim.Signal(syscall.SIGKILL)
	killed := time.Now()
	<-victim.Done()

	deadline := time.Now().Add(2 * time.Minute)
	for {
		h = holdingOf(t, conn, job.ID)
		if h.Owner != nil && *h.Owner == survivorID && h.Attempts == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("job not taken over by the live worker: %+v", h)
		}
		time.Sleep(20 * time.Millisecond)
	}
	rerun := time.Since(killed)
	b, err := c.GetBatch(t.Context(), batch)
	if err != nil {
		t.Fatal(err)
	}

	done := waitJob(t, c, job.ID, 4*time.Minute, "finished", finished)
	sol, err := c.GetSolution(t.Context(), job.ID)
	if err != nil {
		t.Fatal(err)
	}
	if sol.Verdict != want.Verdict || string(sol.Plan) != string(want.Plan) || !sol.Stats.Resumed || done.Attempts != 2 {
		t.Fatalf("after the takeover: %s resumed=%v attempts %d plan %s", sol.Verdict, sol.Stats.Resumed, done.Attempts, sol.Plan)
	}
	waitDone(t, c, batch, 1, 4*time.Minute)
	checkOneResultEach(t, s.DatabaseURL, batch, n)
	var results int
	if err := conn.QueryRow(t.Context(), `SELECT count(*) FROM results WHERE job_id = $1`, job.ID).Scan(&results); err != nil || results != 1 {
		t.Fatalf("%d results for the job (%v), want 1", results, err)
	}
	if !survivor.HasLog("jobs of a dead worker taken over; they resume first") {
		t.Errorf("the survivor did not log the takeover:\n%s", survivor.Output())
	}
	t.Logf("kill -9 → the job runs again on the live worker after %v (batch of %d behind it %.0f%% done then)",
		rerun.Round(10*time.Millisecond), n, 100*b.Done)
}

func TestChaosFlushAllResumesWithinSecondsAndStartsNoJobTwice(t *testing.T) {
	t.Parallel()
	// The stale re-check stays at its default minute: the resume must come
	// from noticing the flush.
	s, _, redis := ownStack(t, "PUZZLED_CHECKPOINT_EVERY=250ms", "PUZZLED_CONCURRENCY=2")
	other := s.StartWorker(t)
	conn := dbConn(t, s.DatabaseURL)
	c := client.New(s.URL)
	long, err := c.CreateJob(t.Context(), hardSheepLevel(t).Canonical(), jobtype.Options{Budget: solver.Budget{MaxMS: 600_000}})
	if err != nil {
		t.Fatal(err)
	}
	waitJob(t, c, long.ID, time.Minute, "checkpointed", checkpointed(1))
	const n = 1000
	batch := twoendsBatch(t, c, n, 4000)
	if b := waitDone(t, c, batch, 0.1, 2*time.Minute); b.Done == 1 {
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

	waitDone(t, c, batch, 1, 3*time.Minute)
	checkOneResultEach(t, s.DatabaseURL, batch, n)
	done := waitJob(t, c, long.ID, 4*time.Minute, "finished", finished)
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
