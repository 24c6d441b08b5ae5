package worker_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/puzzled/puzzled/internal/waittest"
	"github.com/puzzled/puzzled/worker"
)

// A worker that reaches Redis but not PostgreSQL gives the tasks it takes
// back at once, uncounted, for the workers that reach both; it no longer
// sits on each until its store write times out while they idle (issue 30
// item 2). Once PostgreSQL is back it says so and takes tasks again.
func TestWorkerCutOffFromPostgresGivesTasksBack(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cutStore, proxy := e.proxiedStore(t)
	const cutID = "cut-off-worker"
	e.startWorker(t, 4, neverSlow, func(c *worker.Config) { c.Store, c.ID = cutStore, cutID })
	conn, err := pgx.Connect(t.Context(), e.url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	beatAge := func() time.Duration {
		var age time.Duration
		if err := conn.QueryRow(t.Context(), `SELECT now() - heartbeat_at FROM workers WHERE id = $1`, cutID).Scan(&age); err != nil {
			return -1
		}
		return age
	}
	waittest.WaitFor(t, time.Minute, "the worker to beat", func() bool { return beatAge() >= 0 })
	proxy.Cut()
	waittest.WaitFor(t, time.Minute, "three beats to be missed", func() bool { return beatAge() > 3500*time.Millisecond })

	e.startWorker(t, 1, neverSlow)
	start := time.Now()
	id := e.batch(t, make([]int64, 5*64), -1)
	rows := e.waitBatch(t, id, 20*time.Second)
	checkAllDoneOnce(t, rows, 1)
	t.Logf("320 jobs done in %s by the worker that reaches PostgreSQL", time.Since(start).Round(time.Millisecond))
	if !strings.Contains(e.logs.String(), "PostgreSQL out of reach: tasks are given back") {
		t.Fatal("the cut-off worker took no task (the test proves nothing) or did not say it gave them back")
	}
	proxy.Heal()
	waittest.WaitFor(t, time.Minute, "the cut-off worker to say PostgreSQL is back", func() bool {
		return strings.Contains(e.logs.String(), "PostgreSQL reachable again: taking tasks")
	})
}
