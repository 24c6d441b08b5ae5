// Package outage_test holds the fault tests of a stack's servers: Redis
// flushed and PostgreSQL restarted while a batch runs, against a real
// puzzled stack on servers of the test's own (internal/faults/faultstest),
// with every job checked to end with exactly one result and none started
// twice. The processes' faults are internal/faults/local.
package outage_test

import (
	"encoding/json"
	"net/http"
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

// batchLevels is the size of the batch each test acts on mid-way: a few
// seconds of work for two solve processes on a quiet machine, so that a
// fault at 10 % done lands with most of it still to do, and little enough
// that the three tests beside the rest of CI stay far from go test's
// ten-minute limit under load.
const batchLevels = 400

func TestChaosRedisFlushMidBatch(t *testing.T) {
	t.Parallel()
	s, _, redis := faultstest.OwnStack(t, "PUZZLED_STALE_AFTER=2s", "PUZZLED_CONCURRENCY=2")
	c := client.New(s.URL) // a checked client spends seconds on each batch body (the API's own tests check it)
	id := faultstest.TwoendsBatch(t, c, batchLevels, 4000)
	b := faultstest.WaitDone(t, c, id, 0.1, 2*time.Minute)
	if b.Done == 1 {
		t.Fatal("batch finished before the flush; make the jobs heavier")
	}
	flushAll(t, redis.Addr())
	t.Logf("FLUSHALL at %.0f%% done", 100*b.Done)
	faultstest.WaitDone(t, c, id, 1, 3*time.Minute)
	faultstest.CheckOneResultEach(t, s.DatabaseURL, id, batchLevels)
}

func TestChaosPostgresRestartMidBatch(t *testing.T) {
	t.Parallel()
	s, pg, _ := faultstest.OwnStack(t, "PUZZLED_CONCURRENCY=2")
	c := client.New(s.URL)
	id := faultstest.TwoendsBatch(t, c, batchLevels, 4000)
	if b := faultstest.WaitDone(t, c, id, 0.1, 2*time.Minute); b.Done == 1 {
		t.Fatal("batch finished before the restart; make the jobs heavier")
	}
	if err := pg.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	checked := faultstest.CheckedClient(t, s.URL) // the outage's answers are in the document too
	_, err := checked.GetBatch(t.Context(), id)
	if client.StatusOf(err) != http.StatusServiceUnavailable {
		t.Fatalf("API while PostgreSQL is down: %v, want 503", err)
	}
	if _, err := checked.CreateJob(t.Context(), json.RawMessage(`{"kind":"twoends","values":[1]}`), jobtype.Options{}); client.StatusOf(err) != http.StatusServiceUnavailable {
		t.Fatalf("submit while PostgreSQL is down: %v, want 503", err)
	}
	time.Sleep(2 * time.Second) // let workers hit the outage
	if err := pg.Restart(t.Context()); err != nil {
		t.Fatal(err)
	}
	faultstest.WaitDone(t, c, id, 1, 3*time.Minute)
	faultstest.CheckOneResultEach(t, s.DatabaseURL, id, batchLevels)
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
	t.Parallel()
	// The stale re-check stays at its default minute: the resume must come
	// from noticing the flush.
	s, _, redis := faultstest.OwnStack(t, "PUZZLED_CHECKPOINT_EVERY=250ms", "PUZZLED_CONCURRENCY=2")
	other := s.StartWorker(t)
	conn := faultstest.DBConn(t, s.DatabaseURL)
	c := client.New(s.URL)
	long, err := c.CreateJob(t.Context(), faultstest.HardSheepLevel(t).Canonical(), jobtype.Options{Budget: solver.Budget{MaxMS: 600_000}})
	if err != nil {
		t.Fatal(err)
	}
	faultstest.WaitJob(t, c, long.ID, time.Minute, "checkpointed", faultstest.Checkpointed(1))
	const n = batchLevels
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
	t.Parallel()
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

// TestWorkerWaitsForItsServersAtStart: a worker started while PostgreSQL
// and Redis are down (a fleet booted together, a restart during an
// outage) retries with backoff and comes up once they are back, instead
// of exiting (issue 30 item 6); then it solves jobs.
func TestWorkerWaitsForItsServersAtStart(t *testing.T) {
	t.Parallel()
	s, pg, redis := faultstest.OwnStack(t)
	s.Work.Signal(syscall.SIGKILL)
	<-s.Work.Done()
	if err := pg.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := redis.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}

	w := e2etest.Start(t, s.Env(), "work")
	w.WaitLog("PostgreSQL not reachable yet; retrying", time.Minute)
	if err := pg.Restart(t.Context()); err != nil {
		t.Fatal(err)
	}
	w.WaitLog("Redis not reachable yet; retrying", time.Minute)
	if err := redis.Restart(t.Context()); err != nil {
		t.Fatal(err)
	}
	w.WaitLog("worker started", 2*time.Minute)

	c := faultstest.CheckedClient(t, s.URL)
	job, err := c.CreateJob(t.Context(), json.RawMessage(`{"kind":"twoends","values":[3,9,1,2]}`), jobtype.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sol := e2etest.WaitSolution(t, c, job.ID); sol.Verdict != solver.Solved {
		t.Fatalf("the late worker's answer: %+v", sol)
	}
	select {
	case <-w.Done():
		t.Fatalf("the worker exited:\n%s", w.Output())
	default:
	}
}

// TestWorkerRegistersDespiteASlowFirstHeartbeat holds the workers table
// locked while a worker starts, so that its first heartbeat times out (as
// on a loaded machine whose PostgreSQL answered late: a loaded CI run lost
// its only worker that way). The worker keeps trying, takes nothing before
// it is registered, and then solves.
func TestWorkerRegistersDespiteASlowFirstHeartbeat(t *testing.T) {
	t.Parallel()
	s := &e2etest.Stack{DatabaseURL: envtest.PostgresURL(t)}
	s.RedisAddr, s.RedisDB = envtest.RedisAddr(t)
	s.Serve = e2etest.Start(t, s.Env(), "serve")
	s.URL = "http://" + s.Serve.WaitLog("api listening", time.Minute)["addr"].(string)

	conn := faultstest.DBConn(t, s.DatabaseURL)
	tx, err := conn.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(t.Context(), `LOCK TABLE workers IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	w := e2etest.Start(t, s.Env(), "work")
	w.WaitLog("first heartbeat not written; retrying", time.Minute)
	if err := tx.Commit(t.Context()); err != nil {
		t.Fatal(err)
	}

	c := faultstest.CheckedClient(t, s.URL)
	job, err := c.CreateJob(t.Context(), json.RawMessage(`{"kind":"twoends","values":[3,9,1,2]}`), jobtype.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sol := e2etest.WaitSolution(t, c, job.ID); sol.Verdict != solver.Solved {
		t.Fatalf("the worker's answer: %+v", sol)
	}
	select {
	case <-w.Done():
		t.Fatalf("the worker exited:\n%s", w.Output())
	default:
	}
}
