// Package faultstest is the test support of the fault tests under
// internal/faults: a stack on servers of the test's own, a level whose
// search takes seconds, batches that last long enough to act on mid-way,
// and the checks that every job ended with exactly one result.
//
// The fault tests are split into packages by what fails (local: the
// processes; outage: the servers) so that no test package comes near go
// test's ten-minute limit on a busy CI machine; this package is what they
// share.
package faultstest

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/puzzled/puzzled/api/client"
	"github.com/puzzled/puzzled/api/wire"
	"github.com/puzzled/puzzled/internal/contracttest"
	"github.com/puzzled/puzzled/internal/devstack"
	"github.com/puzzled/puzzled/internal/e2etest"
	"github.com/puzzled/puzzled/internal/envtest"
	"github.com/puzzled/puzzled/internal/waittest"
	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/kinds"
	"github.com/puzzled/puzzled/solver/sheep"
)

// CheckedClient is an API client whose every exchange is checked against
// openapi.json: the tests fail when the server drifts from it.
func CheckedClient(t testing.TB, url string) *client.Client {
	c := client.New(url)
	c.HTTP = &http.Client{Transport: contracttest.Transport(t, nil)}
	return c
}

// OwnStack starts serve + work on PostgreSQL and Redis servers of the
// test's own, which the test may stop, restart or flush. Bulk searches run
// at nice 0 unless extraEnv says otherwise: these tests are about crash
// safety, and at the default nice 10 a solve process gets a tenth of a
// core beside CI's other work (a batch of the Redis flush test took over
// five minutes with two CPU hogs beside it).
func OwnStack(t *testing.T, extraEnv ...string) (*e2etest.Stack, *devstack.Postgres, *devstack.Redis) {
	t.Helper()
	pg, redis := envtest.OwnPostgres(t), envtest.OwnRedis(t)
	env := append([]string{"PUZZLED_BULK_PRIORITY=0"}, extraEnv...) // the last of a key wins
	s := &e2etest.Stack{DatabaseURL: pg.URL(), RedisAddr: redis.Addr(), ExtraEnv: env}
	s.Start(t)
	return s, pg, redis
}

// HardSheepLevel is a generated sheep level (150 tiles, a 5-slot tray)
// whose exact search takes seconds: about 6.3 million nodes with sheep/2.
func HardSheepLevel(t *testing.T) *sheep.Level {
	t.Helper()
	lvl, err := generateHardSheep()
	if err != nil {
		t.Fatal(err)
	}
	return lvl
}

func generateHardSheep() (*sheep.Level, error) {
	g, err := sheep.Generate(rand.New(rand.NewPCG(48, 7)), sheep.GenerateOpts{Tiles: 150, Layers: 20, Types: 15, Slots: 5})
	if err != nil {
		return nil, err
	}
	return g.Level, nil
}

// uninterruptedHardSheep solves the hard level once per test binary: its
// seconds of search, repeated by every fault test, added minutes to a
// loaded CI run.
var uninterruptedHardSheep = sync.OnceValues(func() (solver.Result, error) {
	lvl, err := generateHardSheep()
	if err != nil {
		return solver.Result{}, err
	}
	return sheep.New().Solve(context.Background(), lvl, solver.Options{})
})

// HardSheep is HardSheepLevel and its uninterrupted result.
func HardSheep(t *testing.T) (json.RawMessage, solver.Result) {
	t.Helper()
	lvl := HardSheepLevel(t)
	res, err := uninterruptedHardSheep()
	if err != nil || res.Verdict != solver.Solved {
		t.Fatalf("uninterrupted solve: %+v, %v", res, err)
	}
	// The fault tests kill and stop workers during this search.
	if res.Stats.Nodes < 2_000_000 {
		t.Fatalf("the hard level took only %d nodes: the sheep solver got faster; pick a seed whose search takes seconds", res.Stats.Nodes)
	}
	return lvl.Canonical(), res
}

// WaitJob polls a job until cond holds.
func WaitJob(t *testing.T, c *client.Client, id int64, timeout time.Duration, what string, cond func(wire.Job) bool) wire.Job {
	t.Helper()
	var j wire.Job
	waittest.WaitFor(t, timeout, fmt.Sprintf("job %d to be %s", id, what), func() bool {
		var err error
		j, err = c.GetJob(t.Context(), id)
		return err == nil && cond(j)
	})
	return j
}

// SearchStall is how long WaitFinished lets a job go without any sign of
// progress. A search's wall time depends on how busy the machine is (under
// two CPU hogs and CI's other packages a solve process may get a tenth of
// a core); its checkpoints keep coming all the same, however slowly.
const SearchStall = 2 * time.Minute

// WaitFinished polls a job until it is final, failing the test when the job
// shows no progress for SearchStall: its state, attempts, checkpoints and
// node count all unchanged. A run that goes on checkpointing is waited for
// however long the machine makes it, up to go test's own timeout.
func WaitFinished(t *testing.T, c *client.Client, id int64) wire.Job {
	t.Helper()
	type mark struct {
		state       jobtype.State
		attempts    int32
		checkpoints int32
		nodes       int64
	}
	var last mark
	moved := time.Now()
	for {
		j, err := c.GetJob(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		if Finished(j) {
			return j
		}
		now := mark{state: j.State, attempts: j.Attempts}
		if j.Progress != nil {
			now.checkpoints, now.nodes = j.Progress.Checkpoints, j.Progress.Nodes
		}
		if now != last {
			last, moved = now, time.Now()
		}
		if time.Since(moved) > SearchStall {
			t.Fatalf("job %d made no progress for %s: %+v", id, SearchStall, last)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Checkpointed holds once a job has stored n checkpoints.
func Checkpointed(n int32) func(wire.Job) bool {
	return func(j wire.Job) bool { return j.Progress != nil && j.Progress.Checkpoints >= n }
}

// Finished holds once a job is in a final state.
func Finished(j wire.Job) bool { return j.State != jobtype.Queued && j.State != jobtype.Running }

// BatchLevels is the size of the batch a fault test acts on mid-way: a few
// seconds of work for two solve processes on a quiet machine, so that a
// fault at 10 % done lands with most of it still to do, and little enough
// that a package of such tests beside the rest of CI stays far from go
// test's ten-minute limit under load.
const BatchLevels = 400

// NoTakeover is the environment of the workers of a test that checks that
// a job runs once, when the fault it makes is not a dead worker: a worker
// is judged dead after 30 s without a heartbeat instead of 5 s. On a loaded
// CI machine a heartbeat written 5 s late is no fault of the code (a
// loaded run saw it take a live worker's job over in the middle of the
// Redis flush test).
const NoTakeover = "PUZZLED_DEAD_AFTER=30s"

// TwoendsBatch submits n distinct twoends levels of `size` values.
func TwoendsBatch(t *testing.T, c *client.Client, n, size int) int64 {
	t.Helper()
	return TwoendsBatchFrom(t, c, n, size, 0)
}

// TwoendsBatchFrom is TwoendsBatch with its levels shifted by first more,
// so that batches of different firsts share no level (a level solved
// before is done at once, from its stored result).
func TwoendsBatchFrom(t *testing.T, c *client.Client, n, size, first int) int64 {
	t.Helper()
	// Each level is a single peak (values rise, then fall), the shape whose
	// line of play costs the solver O(size²) (solver/twoends): a few
	// milliseconds at 4,000 values, so a batch lasts seconds and a test can
	// act on it mid-way. Random values solve in O(size) and a batch of
	// them can finish between two polls. Level i is shifted by i, so that
	// no two levels are the same (duplicates are solved once).
	levels := make([]json.RawMessage, n)
	for i := range levels {
		v := make([]int64, size)
		for j := range v {
			v[j] = int64(first + i + 1 + min(j, size-1-j))
		}
		levels[i], _ = json.Marshal(map[string]any{"kind": "twoends", "values": v})
	}
	id, err := c.CreateBatch(t.Context(), levels, jobtype.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// WaitDone polls a batch until its done fraction reaches frac. It fails
// when the batch makes no progress for stall: how long a whole batch takes
// depends on how busy the machine is; a batch that stops does not.
func WaitDone(t *testing.T, c *client.Client, id int64, frac float64, stall time.Duration) wire.Batch {
	t.Helper()
	var b wire.Batch
	last, since := -1.0, time.Now()
	for {
		if got, err := c.GetBatch(t.Context(), id); err == nil {
			b = got
			if b.Done >= frac {
				return b
			}
			if b.Done > last {
				last, since = b.Done, time.Now()
			}
		}
		if time.Since(since) > stall {
			t.Fatalf("batch %d made no progress for %s at %.3f done (waiting for %.2f): %+v", id, stall, last, frac, b)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// DBConn is a connection to the stack's database, closed when the test ends.
func DBConn(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// CheckOneResultEach checks in PostgreSQL that every job of the batch is
// done with exactly one result.
func CheckOneResultEach(t *testing.T, databaseURL string, batchID int64, n int) {
	t.Helper()
	conn := DBConn(t, databaseURL)
	var jobs, done, results, jobsWithOne int
	err := conn.QueryRow(t.Context(), `
		SELECT count(*), count(*) FILTER (WHERE j.state = 'done'),
			(SELECT count(*) FROM results r JOIN jobs j2 ON j2.id = r.job_id WHERE j2.batch_id = $1),
			count(*) FILTER (WHERE (SELECT count(*) FROM results r WHERE r.job_id = j.id) = 1)
		FROM jobs j WHERE j.batch_id = $1`, batchID).Scan(&jobs, &done, &results, &jobsWithOne)
	if err != nil {
		t.Fatal(err)
	}
	if jobs != n || done != n || results != n || jobsWithOne != n {
		t.Fatalf("batch %d: %d jobs, %d done, %d results, %d with exactly one; want %d each", batchID, jobs, done, results, jobsWithOne, n)
	}
}

// VerifyResults replays every result of the batch through its kind's
// simulator (solver.Kind.Verify: for twoends, the line replayed and its
// value checked against the linear-time optimum), reading levels and
// results from PostgreSQL. A fault must leave no wrong answer, not only
// one answer per job.
func VerifyResults(t *testing.T, databaseURL string, batchID int64) {
	t.Helper()
	reg := kinds.Registry()
	rows, err := DBConn(t, databaseURL).Query(t.Context(), `
		SELECT j.id, l.body, r.verdict, r.value, r.optimal, coalesce(r.proof, ''), r.plan, r.details
		FROM jobs j JOIN levels l ON l.hash = j.level_hash JOIN results r ON r.job_id = j.id
		WHERE j.batch_id = $1`, batchID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	checked := 0
	for rows.Next() {
		var id int64
		var body []byte
		var res solver.Result
		if err := rows.Scan(&id, &body, &res.Verdict, &res.Value, &res.Optimal, &res.Proof, &res.Plan, &res.Details); err != nil {
			t.Fatal(err)
		}
		lvl, err := reg.Parse(body)
		if err != nil {
			t.Fatalf("job %d: stored level does not parse: %v", id, err)
		}
		if err := reg.KindOf(lvl).Verify(lvl, res); err != nil {
			t.Fatalf("job %d: stored result does not verify: %v", id, err)
		}
		checked++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Fatalf("batch %d: no result to verify", batchID)
	}
}

// WorkerID is the id a `puzzled work` process beats under.
func WorkerID(t *testing.T, p *e2etest.Proc) string {
	t.Helper()
	id, _ := p.WaitLog("worker started", time.Minute)["worker_id"].(string)
	if id == "" {
		t.Fatal("worker started without a worker_id")
	}
	return id
}
