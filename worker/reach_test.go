package worker_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/puzzled/puzzled/internal/envtest"
	"github.com/puzzled/puzzled/internal/waittest"
	"github.com/puzzled/puzzled/worker"
)

// startCutOffWorker starts a worker of concurrency slots whose store
// reaches PostgreSQL through a proxy, cuts the proxy once it has beaten,
// and returns when the worker has missed three beats and said that it
// takes no more tasks.
func (e *env) startCutOffWorker(t *testing.T, slots int) (*worker.Worker, *envtest.Proxy) {
	t.Helper()
	cutStore, proxy := e.proxiedStore(t)
	const cutID = "cut-off-worker"
	e.startWorker(t, slots, neverSlow, func(c *worker.Config) { c.Store, c.ID = cutStore, cutID })
	cut := e.last
	conn, err := pgx.Connect(t.Context(), e.url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	// Two beats: the first is register's, which the worker may not have
	// heard answered before the cut (it would then wait in register and
	// never start its servers); the second comes from the beat loop, which
	// starts after register returned, just before the servers do.
	var first time.Time
	beatAt := func() (at time.Time) {
		_ = conn.QueryRow(t.Context(), `SELECT heartbeat_at FROM workers WHERE id = $1`, cutID).Scan(&at)
		return at
	}
	waittest.WaitFor(t, time.Minute, "the worker to beat", func() bool { first = beatAt(); return !first.IsZero() })
	waittest.WaitFor(t, time.Minute, "the worker to beat again", func() bool { return beatAt().After(first) })
	proxy.Cut()
	waittest.WaitFor(t, time.Minute, "the cut-off worker to stop taking tasks", func() bool {
		return strings.Contains(e.logs.String(), "PostgreSQL out of reach: taking no tasks")
	})
	return cut, proxy
}

// A worker that reaches Redis but not PostgreSQL takes no tasks, so that
// the workers that reach both get them all: it no longer sits on each
// until its store write times out while they idle (issue 30 item 2), nor
// takes and gives them back (which once left the last bundle of a batch
// bouncing between two workers for 20 s). Once PostgreSQL is back it says
// so and takes tasks again.
func TestWorkerCutOffFromPostgresTakesNoTasks(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cut, proxy := e.startCutOffWorker(t, 4)

	// The other worker sends the rest of each bundle solo once its first
	// job has run 5 ms: nearly every job of 20 ms travels in a task of its
	// own, and the queue has tasks waiting for seconds, which a worker
	// that kept asking would take (17 of them in a run of the code before).
	stopOther := e.startWorker(t, 2, slowAfter(5*time.Millisecond))
	ms := make([]int64, 5*64)
	for i := range ms {
		ms[i] = 20
	}
	start := time.Now()
	id := e.batch(t, ms, -1)
	checkAllDoneOnce(t, e.waitBatch(t, id, time.Minute), 1)
	t.Logf("320 jobs done in %s by the worker that reaches PostgreSQL", time.Since(start).Round(time.Millisecond))
	if n := cut.GivenBack(); n != 0 {
		t.Fatalf("the cut-off worker took %d tasks (and gave them back), want none", n)
	}

	proxy.Heal()
	waittest.WaitFor(t, time.Minute, "the cut-off worker to say PostgreSQL is back", func() bool {
		return strings.Contains(e.logs.String(), "PostgreSQL reachable again: taking tasks")
	})
	// Only the healed worker is left to run the next batch (of other
	// levels, so that none is answered from the cache).
	stopOther()
	ms = make([]int64, 2*64)
	for i := range ms {
		ms[i] = 1
	}
	id = e.batch(t, ms, -1)
	checkAllDoneOnce(t, e.waitBatch(t, id, time.Minute), 1)
}
