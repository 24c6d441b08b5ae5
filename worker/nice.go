package worker

import (
	"context"
	"runtime"

	"github.com/hibiken/asynq"

	"github.com/puzzled/puzzled/queue"
)

// niceFor is the scheduling niceness of a task's handler: BulkNice for
// the bulk queue (a batch's bundles and solo bulk jobs), none for the
// interactive and resumed queues. A resumed task may carry a bulk job; it
// runs at normal priority, which costs nothing but fairness.
func (w *Worker) niceFor(ctx context.Context) int {
	if q, ok := asynq.GetQueueName(ctx); ok && q == queue.Bulk {
		return w.cfg.BulkNice
	}
	return 0
}

// runNiced runs fn on an operating-system thread of its own whose
// niceness is raised by nice, so that the kernel gives the CPU to
// everything else first: on a machine whose cores the bulk searches fill,
// an interactive job's handler, the API, PostgreSQL and Redis would
// otherwise each wait for a time slice at every step (issue #16: 5–6×
// the idle submit-to-done latency). The Go runtime schedules goroutines,
// not threads, so the search is pinned to its thread with LockOSThread,
// and the thread is thrown away afterwards (a goroutine that exits locked
// ends its thread) rather than handed back to the runtime with a lowered
// priority; restoring it would need CAP_SYS_NICE. Goroutines that fn
// starts run on ordinary threads. A panic in fn is raised again in the
// caller, where asynq recovers it.
func runNiced(nice int, fn func()) {
	if nice <= 0 {
		fn()
		return
	}
	done := make(chan any, 1)
	go func() {
		defer func() { done <- recover() }()
		runtime.LockOSThread()
		_ = setThreadNice(nice) // best effort: a refusal leaves the thread as it was
		fn()
	}()
	if p := <-done; p != nil {
		panic(p)
	}
}
