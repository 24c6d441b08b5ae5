package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/hibiken/asynq"

	"github.com/puzzled/puzzled/internal/solveproc"
	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/queue"
	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/store"
)

// attempt is what running one job gave.
type attempt struct {
	job     store.RunnableJob
	res     solver.Result
	version string // the kind's solver version, with a result
	err     error  // nil: res is verified and final for this budget
	// slow: the job ran past SlowAfter inside a bundle, was marked running
	// and the rest of its bundle was sent solo (see bundle.go).
	slow bool
	// moved: the job's search ran past InProcessSlice in this process and
	// started over in a solve process.
	moved bool
}

var (
	errCanceled = errors.New("job canceled")
	// errHandedBack is the cause of a search stopped by Shutdown.
	errHandedBack = errors.New("worker: shutting down, job handed back")
	// errTakenOver: another worker holds the job now (this one was judged
	// dead: its beats did not reach PostgreSQL for DeadAfter).
	errTakenOver = errors.New("job taken over by another worker")
	// errFinal marks failures that a retry cannot fix (bad stored level,
	// a plan that fails replay): the job fails at once.
	errFinal = solveproc.ErrFinal
)

// run solves one job and verifies the result, in the way strategyFor
// picks. A bundle passes onSlow, which the job's watcher calls once the
// search has run for SlowAfter (see bundle.go), and here: whether the job
// may start in this process even when it is bulk work (see
// InProcessSlice); a solo job nil and false.
func (w *Worker) run(ctx context.Context, log *slog.Logger, job store.RunnableJob, onSlow func() bool, here bool) (a attempt) {
	a.job = job
	w.solving.Add(1)
	defer w.solving.Add(-1)
	kind, ok := w.cfg.Registry.Kind(job.Kind)
	if !ok {
		a.err = fmt.Errorf("%w: kind %q is not registered in this worker", errFinal, job.Kind)
		return a
	}
	// The search does not stop on the task's context alone: asynq cancels it
	// on POST …/cancel through Redis pub/sub, which ignores the DB index, so
	// a cancel of the same task id by another installation sharing the Redis
	// server would reach this one too. The watcher asks PostgreSQL first.
	solveCtx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	defer cancel(nil)
	watched := w.watchSoon(solveCtx, ctx, cancel, job.ID, onSlow)
	defer func() { cancel(nil); a.slow = watched() }()

	out := w.strategyFor(ctx, here).solve(solveCtx, log, kind, w.request(job), w.checkpointer(solveCtx, log, job))
	a.res, a.moved = out.res, out.moved
	if out.err != nil {
		a.err = w.attemptError(ctx, solveCtx, job.ID, out.err)
		return a
	}
	a.version = kind.Version()
	return a
}

// request is the solve of a stored job.
func (w *Worker) request(job store.RunnableJob) solveproc.Request {
	return solveproc.Request{
		JobID:           job.ID,
		Kind:            job.Kind,
		Level:           job.Body,
		Budget:          job.Budget,
		CheckpointEvery: w.cfg.CheckpointEvery,
		Resume:          job.Checkpoint,
		Playouts:        w.playouts(job.Playouts),
		PlayoutWorkers:  w.playoutWorkers(),
		Threads:         w.freeCores(),
	}
}

// checkpointer is what a job's search calls with each checkpoint: it is
// saved under the next sequence number and told to the Observer.
func (w *Worker) checkpointer(ctx context.Context, log *slog.Logger, job store.RunnableJob) func([]byte) {
	seq := job.CheckSeq
	return func(blob []byte) {
		seq++
		if _, err := w.cfg.Store.SaveCheckpoint(ctx, w.runOf(job), job.ID, seq, blob); err != nil {
			if fenceLogged(log, err) != nil {
				log.Warn("checkpoint not saved", slog.Any("error", err))
			}
			return
		}
		if w.cfg.Observer != nil {
			w.cfg.Observer.Checkpointed(job.Kind)
		}
	}
}

// attemptError names why a search ended with err: a failure no retry can
// fix, the cause its watcher gave (canceled, handed back, taken over), the
// task's context ending (asynq cancels it on POST …/cancel, often before
// our own poll notices, and on its timeout), or the solver's own error.
func (w *Worker) attemptError(taskCtx, solveCtx context.Context, id int64, err error) error {
	switch cause := context.Cause(solveCtx); {
	case errors.Is(err, errFinal):
		return err
	case errors.Is(cause, errCanceled), errors.Is(cause, errHandedBack), errors.Is(cause, errTakenOver):
		return cause
	case taskCtx.Err() != nil:
		if w.canceled(id) {
			return errCanceled
		}
		return fmt.Errorf("%w: %w", errTaskEnded, taskCtx.Err())
	default:
		return fmt.Errorf("solver: %w", err)
	}
}

// isInteractive reports whether the task of ctx came from the interactive
// queue. A job taken back from a worker goes to the resumed queue, whatever
// its priority, and is solved as bulk work.
func isInteractive(ctx context.Context) bool {
	q, _ := asynq.GetQueueName(ctx)
	return q == queue.Interactive
}

// errTaskEnded: the task's context ended (asynq's timeout, a lost lease).
var errTaskEnded = errors.New("task context ended")

// canceled reports whether the job was canceled in PostgreSQL.
func (w *Worker) canceled(id int64) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	state, err := w.cfg.Store.JobState(ctx, id)
	return err == nil && state == jobtype.Canceled
}
