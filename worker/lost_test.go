package worker_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/jackc/pgx/v5"

	"github.com/puzzled/puzzled/internal/envtest"
	"github.com/puzzled/puzzled/internal/waittest"
	"github.com/puzzled/puzzled/queue"
	"github.com/puzzled/puzzled/worker"
)

// A worker that took bundles from Redis and was cut off from both servers
// before it could claim them in PostgreSQL: nothing there names it, so no
// takeover finds their jobs, and asynq would give the tasks back only a
// minute or more later (its lease, 30 s, expired for another 30 s, at its
// recoverer's scan each minute). A live worker's dispatcher finds the
// tasks lost once their lease has gone queue.LostAfter without being
// extended and sends their jobs solo; every job is done once, long before
// asynq would have acted (issue 30: the one-minute stall of the
// multi-host suite).
func TestTasksLostWithTheirWorkerRunWithinSeconds(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cutStore, pgProxy := e.proxiedStore(t)
	cutRedis := e.redis.(asynq.RedisClientOpt) // the env's Redis DB, through a proxy
	redisProxy := envtest.NewProxy(t, cutRedis.Addr)
	cutRedis.Addr = redisProxy.Addr
	cutQueue := queue.NewClient(cutRedis)
	t.Cleanup(func() { cutQueue.Close() })
	const cutID = "lost-worker"
	// It does not notice that PostgreSQL is cut (a worker takes no tasks
	// once it has, reach.go): it takes bundles it cannot claim, as in the
	// moment before it would notice, whatever the time the rounds below
	// take on a loaded machine.
	stopCut := e.startWorkerWith(t, 4, serving{store: cutStore, redis: cutRedis, queue: cutQueue}, neverSlow,
		func(c *worker.Config) { c.ID, c.UnreachableAfter = cutID, time.Hour })
	conn, err := pgx.Connect(t.Context(), e.url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	waittest.WaitFor(t, time.Minute, "the worker to beat and take tasks", func() bool {
		var n int
		servers, err := e.qc.Inspector().Servers()
		return err == nil && len(servers) == 1 &&
			conn.QueryRow(t.Context(), `SELECT count(*) FROM workers WHERE id = $1`, cutID).Scan(&n) == nil && n == 1
	})

	// PostgreSQL cut: the bundles it takes now hang in their claim.
	pgProxy.Cut()
	const bundles = 6
	id := e.batch(t, make([]int64, bundles*queue.BundleSize), -1)
	// Rounds until the worker holds bundles, as a dispatcher runs them: the
	// cut-off worker's own dispatcher may have been cut in the middle of
	// its admission, whose lock it then holds until PostgreSQL ends its
	// idle session (store.AdmitBulk), and a round meanwhile admits nothing
	// (the bulk queue does not even exist until a task went into it).
	dispatcher := queue.NewDispatcher(queue.DispatcherConfig{Store: e.st, Client: e.qc})
	waittest.WaitFor(t, 30*time.Second, "the worker to take bundles", func() bool {
		if _, err := dispatcher.Round(t.Context()); err != nil {
			t.Fatal(err)
		}
		active, err := e.qc.Inspector().ListActiveTasks(queue.Bulk)
		if errors.Is(err, asynq.ErrQueueNotFound) {
			return false
		}
		if err != nil {
			t.Fatal(err)
		}
		return len(active) > 0
	})
	time.Sleep(300 * time.Millisecond) // let it take the rest it can
	// Redis cut too: its leases are no longer extended, as if it died.
	redisProxy.Cut()
	cut := time.Now()
	active, err := e.qc.Inspector().ListActiveTasks(queue.Bulk)
	if err != nil {
		t.Fatal(err)
	}
	var held []int32 // the bundles the cut-off worker holds
	for _, a := range active {
		if p, ok := queue.ParseTaskID(a.ID); ok && p.IsBundle() {
			held = append(held, p.Bundle)
		}
	}
	t.Logf("the cut-off worker holds bundles %v", held)

	e.startWorkerWith(t, 2, serving{takeOver: true}, neverSlow)
	rows := e.waitBatch(t, id, 2*time.Minute)
	checkAllDoneOnce(t, rows, 1)
	t.Logf("batch of %d jobs done %s after the worker holding %d of its bundles was cut off", len(rows),
		time.Since(cut).Round(time.Millisecond), len(held))
	// Sent again by a dispatcher, every job of those bundles counts a
	// recovery; given back by asynq's own recoverer (a minute later), none
	// would.
	var jobs, recovered int
	if err := conn.QueryRow(t.Context(), `SELECT count(*), count(*) FILTER (WHERE recoveries > 0) FROM jobs
		WHERE batch_id = $1 AND seq / $2 = ANY ($3)`, id, queue.BundleSize, held).Scan(&jobs, &recovered); err != nil {
		t.Fatal(err)
	}
	if jobs != len(held)*queue.BundleSize || recovered != jobs {
		t.Errorf("%d of the %d jobs of the held bundles were sent again by a dispatcher; want all %d", recovered, jobs,
			len(held)*queue.BundleSize)
	}
	if !strings.Contains(e.logs.String(), "sent again") {
		t.Error("no dispatcher said it sent the jobs of lost tasks again")
	}

	// Healed, the cut-off worker's late claims find the bundles gone: still
	// one result per job.
	pgProxy.Heal()
	redisProxy.Heal()
	stopCut()
	checkAllDoneOnce(t, e.jobs(t, id), 1)
}
