package worker

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/hibiken/asynq"

	"github.com/puzzled/puzzled/queue"
	"github.com/puzzled/puzzled/store"
)

// A worker that reaches Redis but not PostgreSQL (a partition, a
// connection table full) must not take tasks: every one would wait in its
// first store write, for up to the write merger's timeout, while the other
// workers sit idle (issue 30 item 2). The heartbeat tells whether
// PostgreSQL answers: once the last beat written is older than
// Config.UnreachableAfter, the worker's servers stop taking tasks
// (serverSet in server.go), and a task taken in the moment before is held
// for giveBackAfter, then given back to asynq for another worker, without
// counting as a failure of the task. Searches already running go on: a
// PostgreSQL outage of a few seconds is common, their results are written
// when it is back, and if this worker is judged dead meanwhile its runs
// are fenced (store/fence.go).

// unreachableAfter is Config.UnreachableAfter's default: three beats.
const unreachableAfter = 3 * HeartbeatEvery

// errNoPostgres is a task's error when this worker cannot reach
// PostgreSQL: asynq puts the task back for another worker, soon, and does
// not count it as a failed attempt (isFailure).
var errNoPostgres = errors.New("worker: PostgreSQL out of reach; task given back for another worker")

// beaten records a heartbeat written now.
func (w *Worker) beaten() {
	w.lastBeat.Store(time.Now().UnixNano())
	w.givingBack.Store(false)
}

// lastBeatAge is how long ago the last heartbeat was written.
func (w *Worker) lastBeatAge() time.Duration { return time.Since(time.Unix(0, w.lastBeat.Load())) }

// reachesPostgres reports whether the last heartbeat was written within
// Config.UnreachableAfter.
func (w *Worker) reachesPostgres() bool { return w.lastBeatAge() < w.cfg.UnreachableAfter }

// whilePostgresReachable is the asynq middleware that gives a task back
// when PostgreSQL is out of reach, after holding it for giveBackAfter (or
// runs it, if PostgreSQL answers meanwhile). The task then waits in
// asynq's retry set until its forwarder runs (DelayedTaskCheckInterval,
// 1 s), and whoever is free then takes it.
func (w *Worker) whilePostgresReachable(next asynq.Handler) asynq.Handler {
	return asynq.HandlerFunc(func(ctx context.Context, t *asynq.Task) error {
		if !w.reachesPostgres() {
			if w.givingBack.CompareAndSwap(false, true) {
				w.cfg.Logger.Warn("PostgreSQL out of reach: tasks taken are given back for other workers",
					slog.Duration("last_beat_age", w.lastBeatAge().Round(time.Millisecond)))
			}
			if !w.awaitPostgres(ctx, giveBackAfter) {
				w.givenBack.Add(1)
				return errNoPostgres
			}
		}
		return next.ProcessTask(ctx, t)
	})
}

// giveBackAfter is how long a worker that cannot reach PostgreSQL holds a
// task it took before it gives it back. Given back at once, the task was
// due again a second later, and the cut-off worker, taking and giving back
// tasks as fast as Redis answered, emptied the short bulk queue (admission
// keeps about 100 ms of work in it) again and again: the workers that
// reached PostgreSQL got few of its tasks, and a batch of solo jobs took
// several times as long beside it (TestCutOffWorkerHoldsWhatItGivesBack:
// 46.5 s and 5,602 tasks given back, against 12.5 s and 17 held). Held,
// its tasks out of the queue are at most its slots' worth, as if it were
// busy.
const giveBackAfter = 2 * time.Second

// awaitPostgres waits up to d for a heartbeat to be written, and reports
// whether PostgreSQL is in reach.
func (w *Worker) awaitPostgres(ctx context.Context, d time.Duration) bool {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	tick := time.NewTicker(HeartbeatEvery / 10)
	defer tick.Stop()
	for !w.reachesPostgres() {
		select {
		case <-ctx.Done():
			return false
		case <-deadline.C:
			return false
		case <-tick.C:
		}
	}
	return true
}

// GivenBack is how many tasks this worker gave back because it could not
// reach PostgreSQL.
func (w *Worker) GivenBack() int64 { return w.givenBack.Load() }

// isFailure is asynq's IsFailure: a task given back because PostgreSQL is
// out of reach, or whose store write found no connection (a restarting
// server, a full connection table: store.Transient), did not fail; it
// keeps its retry count.
func isFailure(err error) bool { return !errors.Is(err, errNoPostgres) && !store.Transient(err) }

// retryDelay is queue.RetryDelay, except that a task given back because
// PostgreSQL is out of reach is due again at once (asynq's forwarder moves
// it back to its queue within DelayedTaskCheckInterval), and one whose
// store write found no connection in a second: queue.RetryDelay's backoff
// left the jobs of a 15 s outage idle 13–21 s after it ended (issue 30
// item 9).
func retryDelay(n int, err error, t *asynq.Task) time.Duration {
	switch {
	case errors.Is(err, errNoPostgres):
		return 0
	case store.Transient(err):
		return time.Second
	}
	return queue.RetryDelay(n, err, t)
}
