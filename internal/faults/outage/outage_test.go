// Package outage_test holds the fault tests of PostgreSQL's outages: a
// restart while a batch runs, a worker started while its servers are down,
// a first heartbeat that cannot be written, a full connection table,
// against a real puzzled stack on
// servers of the test's own (internal/faults/faultstest), with every job
// checked to end with exactly one result. Redis's faults are
// internal/faults/redisloss, the processes' internal/faults/local and
// internal/faults/takeover.
//
// The tests run one at a time (no t.Parallel): each starts a whole stack
// (PostgreSQL, Redis, serve, workers and their solve processes), and four
// stacks at once beside two CPU hogs on a 2-CPU CI machine made each test
// five to fifty times slower than alone, past go test's ten-minute limit
// for a package; the fault tests are split into small packages for the
// same reason.
package outage_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/puzzled/puzzled/api/client"
	"github.com/puzzled/puzzled/internal/e2etest"
	"github.com/puzzled/puzzled/internal/envtest"
	"github.com/puzzled/puzzled/internal/faults/faultstest"
	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/solver"
)

func TestMain(m *testing.M) { os.Exit(envtest.Run(m)) }

func TestChaosPostgresRestartMidBatch(t *testing.T) {
	const outage = 15 * time.Second // as the issue measured it
	s, pg, _ := faultstest.OwnStack(t, "PUZZLED_CONCURRENCY=2")
	c := client.New(s.URL)
	id := faultstest.TwoendsBatch(t, c, faultstest.BatchLevels, 4000)
	if b := faultstest.WaitDone(t, c, id, 0.1, 2*time.Minute); b.Done == 1 {
		t.Fatal("batch finished before the restart; make the jobs heavier")
	}
	before, err := c.GetBatch(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if err := pg.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	checked := faultstest.CheckedClient(t, s.URL) // the outage's answers are in the document too
	_, err = checked.GetBatch(t.Context(), id)
	if client.StatusOf(err) != http.StatusServiceUnavailable {
		t.Fatalf("API while PostgreSQL is down: %v, want 503", err)
	}
	if _, err := checked.CreateJob(t.Context(), json.RawMessage(`{"kind":"twoends","values":[1]}`), jobtype.Options{}); client.StatusOf(err) != http.StatusServiceUnavailable {
		t.Fatalf("submit while PostgreSQL is down: %v, want 503", err)
	}
	time.Sleep(outage) // the workers hit the outage
	if err := pg.Restart(t.Context()); err != nil {
		t.Fatal(err)
	}
	back := time.Now()
	// How long the batch sits idle once PostgreSQL is back (issue 30 item
	// 9: 13–21 s after a 15 s outage, with asynq's backoff on the tasks
	// that failed during it). Logged, not held to a bound: a loaded CI
	// machine stretches it.
	for {
		if b, err := c.GetBatch(t.Context(), id); err == nil && b.Done > before.Done {
			t.Logf("PostgreSQL down for %s; progress again %s after it was back", outage, time.Since(back).Round(100*time.Millisecond))
			break
		}
		if time.Since(back) > 2*time.Minute {
			t.Fatal("no progress two minutes after PostgreSQL was back")
		}
		time.Sleep(50 * time.Millisecond)
	}
	faultstest.WaitDone(t, c, id, 1, 3*time.Minute)
	t.Logf("batch done %s after PostgreSQL was back", time.Since(back).Round(100*time.Millisecond))
	faultstest.CheckOneResultEach(t, s.DatabaseURL, id, faultstest.BatchLevels)
	var redone int
	if err := faultstest.DBConn(t, s.DatabaseURL).QueryRow(t.Context(),
		`SELECT count(*) FROM jobs WHERE batch_id = $1 AND attempts > 1`, id).Scan(&redone); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d jobs solved more than once (the issue saw 6)", redone)
}

// TestWorkerWaitsForItsServersAtStart: a worker started while PostgreSQL
// and Redis are down (a fleet booted together, a restart during an
// outage) retries with backoff and comes up once they are back, instead
// of exiting (issue 30 item 6); then it solves jobs.
func TestWorkerWaitsForItsServersAtStart(t *testing.T) {
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

// TestFullConnectionTableJudgesNoLiveWorkerDead: ten workers of
// concurrency 32 against a PostgreSQL of max_connections = 100, and then
// its connection table filled to the last slot for longer than --dead-after
// while they work through a batch (issue 30 item 6). Heartbeats have a
// connection of their own, opened at start: no live worker is judged dead,
// no job is taken over or runs twice, every job ends with one result.
// Before, a full table made heartbeats fail and 29 jobs ran twice.
//
// The workers poll the interactive queue every 50 ms, not every 1 ms (the
// default): ten idle workers polling every millisecond take about 1.4 of
// the CI machine's 2 CPUs (14 % each, measured), and under CI's other load
// serve's COPY of the batch got no CPU for 90 s. Interactive latency is not
// what this test is about.
//
// A worker is judged dead after 15 s without a beat, not 5 s: its 32
// searches run in the worker process (bulk priority off: 320 processes
// would not fit), at the heartbeat's own priority, ten workers of them on
// two CPUs, and under CI's other load a beat came 5 s late (a PostgreSQL
// that is slow, not full; 26 jobs were taken over). The table is full for
// three times that, so a heartbeat that needed a free slot would still
// miss it by 30 s.
func TestFullConnectionTableJudgesNoLiveWorkerDead(t *testing.T) {
	const workers, levels, deadAfter = 10, 1500, 15 * time.Second
	pg, redis := envtest.OwnPostgresWith(t, map[string]string{"max_connections": "100"}), envtest.OwnRedis(t)
	s := &e2etest.Stack{DatabaseURL: pg.URL(), RedisAddr: redis.Addr(),
		ExtraEnv: []string{"PUZZLED_BULK_PRIORITY=off", "PUZZLED_CONCURRENCY=32", "PUZZLED_INTERACTIVE_POLL=50ms",
			"PUZZLED_DEAD_AFTER=" + deadAfter.String()}}
	s.Start(t)
	procs := []*e2etest.Proc{s.Work}
	for len(procs) < workers {
		procs = append(procs, s.StartWorker(t))
	}
	conn := faultstest.DBConn(t, s.DatabaseURL)
	c := client.New(s.URL)
	id := faultstest.TwoendsBatch(t, c, levels, 4000)
	if b := faultstest.WaitDone(t, c, id, 0.05, 2*time.Minute); b.Done == 1 {
		t.Fatal("batch finished before the table was filled; make the jobs heavier")
	}

	// Fill every slot left, and hold them for three times --dead-after.
	var fillers []*pgx.Conn
	for {
		f, err := pgx.Connect(t.Context(), s.DatabaseURL)
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "53300" {
			break
		}
		if err != nil {
			t.Fatalf("filling the connection table: %v", err)
		}
		fillers = append(fillers, f)
	}
	t.Logf("connection table full: %d more connections held for %s", len(fillers), 3*deadAfter)
	time.Sleep(3 * deadAfter)
	for _, f := range fillers {
		f.Close(context.Background())
	}

	faultstest.WaitDone(t, c, id, 1, 3*time.Minute)
	faultstest.CheckOneResultEach(t, s.DatabaseURL, id, levels)
	var twice, recovered, dead int
	err := conn.QueryRow(t.Context(), `
		SELECT count(*) FILTER (WHERE attempts > 1), count(*) FILTER (WHERE recoveries > 0),
			(SELECT count(*) FROM workers WHERE heartbeat_at < now() - $2::interval)
		FROM jobs WHERE batch_id = $1`, id, deadAfter).Scan(&twice, &recovered, &dead)
	if err != nil {
		t.Fatal(err)
	}
	if twice != 0 || recovered != 0 || dead != 0 {
		t.Errorf("%d jobs ran more than once, %d were taken over, %d workers' beats are late; want none", twice, recovered, dead)
		for i, p := range procs {
			for _, l := range strings.Split(p.Output(), "\n") {
				if strings.Contains(l, `"level":"WARN"`) || strings.Contains(l, `"level":"ERROR"`) {
					t.Logf("worker %d: %s", i, l)
				}
			}
		}
	}
	// A first beat retried at start ("first heartbeat not written;
	// retrying") is no fault: the worker holds nothing until it is written
	// (ten workers starting at once on a loaded machine can take longer
	// than a beat's deadline to connect). A beat that fails later is.
	for i, p := range procs {
		for _, l := range strings.Split(p.Output(), "\n") {
			switch {
			case strings.Contains(l, `"msg":"first heartbeat not written`):
				t.Logf("worker %d at start: %s", i, l)
			case strings.Contains(l, "taken over") || strings.Contains(l, "heartbeat not written"):
				t.Errorf("worker %d lost its heartbeat or a job: %s", i, l)
			}
		}
	}
}
