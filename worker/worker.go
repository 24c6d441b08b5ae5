// Package worker runs solve jobs: the asynq handler claims a job (or a
// bundle of a batch's jobs, see bundle.go) in PostgreSQL, runs its kind's
// solver with the job's budget, checkpoints and cancellation, replays the
// plan through the kind's simulator, and settles the job (settle.go): its
// result stored, or the job requeued, failed or retried. Every worker
// process beats in PostgreSQL (liveness.go): a job records the worker that
// holds it, and a dead worker's jobs are taken over within seconds.
package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hibiken/asynq"

	"github.com/puzzled/puzzled/internal/solveproc"
	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/queue"
	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/store"
)

// Config configures a Worker.
type Config struct {
	Store    *store.Store
	Registry *solver.Registry
	Logger   *slog.Logger
	// ID names this worker process in PostgreSQL (default: host, pid and a
	// random suffix).
	ID string
	// CheckpointEvery is the least time between two checkpoints of a search
	// (default 5 s).
	CheckpointEvery time.Duration
	// CancelPoll is how often a running job's state is checked for a cancel
	// or a takeover (default 500 ms).
	CancelPoll time.Duration
	// Observer, if set, is told about every finished solve (metrics).
	Observer Observer
	// DifficultyPlayouts is the number of playouts per player of the
	// difficulty figures of jobs that do not say (0:
	// difficulty.DefaultPlayouts; negative: no figures for any job, whatever
	// it asked).
	DifficultyPlayouts int
	// Processes, if set, runs the searches of bulk jobs in child processes
	// at a lower CPU priority (see package solveproc); nil runs every
	// search in this process.
	Processes *solveproc.Pool
	// YieldToInteractive stops the child processes of Processes while an
	// interactive job is on its way or running here (see yield.go).
	YieldToInteractive bool
}

// Observer receives events for metrics.
type Observer interface {
	Solved(kind string, verdict solver.Verdict, elapsed time.Duration, nodes int64)
	Checkpointed(kind string)
}

// Worker handles solve tasks.
type Worker struct {
	cfg   Config
	owner store.Owner
	// stopping is closed when the process shuts down: running searches
	// stop at once and their jobs are handed back (see Shutdown).
	stopping chan struct{}
	// starts and finishes merge the store writes of concurrent handlers.
	starts   *writeMerger[int64, startReply]
	finishes *writeMerger[store.Finish, bool]
	close    context.CancelFunc

	// held is what this process holds: jobs it runs, and the jobs of the
	// bundles it works through. A job that PostgreSQL says it holds but
	// held does not (its handler failed to write, or panicked) is let go
	// at the next beat (releaseStrays), so that a retry may run it anywhere.
	mu   sync.Mutex
	held map[int64]bool
	// claims is read-locked around a claim in PostgreSQL and the matching
	// hold, and write-locked by releaseStrays, which must not see one
	// without the other.
	claims sync.RWMutex
	// solving counts the jobs in run now: the difficulty playouts of one
	// take the cores the others leave free (see playoutWorkers).
	solving atomic.Int64
	// yield stops the bulk searches for interactive work; nil: never.
	yield *yielder
}

type startReply struct {
	job store.RunnableJob
	ok  bool // false: the job is final, gone or held by another live worker
}

// New returns a Worker with defaults filled.
func New(cfg Config) *Worker {
	if cfg.CheckpointEvery <= 0 {
		cfg.CheckpointEvery = 5 * time.Second
	}
	if cfg.CancelPoll <= 0 {
		cfg.CancelPoll = 500 * time.Millisecond
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.ID == "" {
		cfg.ID = newWorkerID()
	}
	w := &Worker{cfg: cfg, owner: store.Owner{ID: cfg.ID, DeadAfter: DeadAfter}, stopping: make(chan struct{}),
		held: map[int64]bool{}}
	if cfg.Processes != nil && cfg.YieldToInteractive {
		w.yield = newYielder(cfg.Processes)
	}
	w.starts = newWriteMerger(256, w.flushStarts)
	w.finishes = newWriteMerger(256, w.flushFinishes)
	life, cancel := context.WithCancel(context.Background())
	w.close = cancel
	go w.starts.run(life)
	go w.finishes.run(life)
	return w
}

// InteractiveSubmitted tells the worker that an interactive job was
// submitted (queue.Client.NotifyInteractive): its bulk searches yield for
// a moment (YieldWindow), whichever worker takes the job.
func (w *Worker) InteractiveSubmitted() {
	if w.yield != nil {
		w.yield.notice()
	}
}

// Yielded reports how often the bulk searches were stopped for
// interactive work, and for how long in all.
func (w *Worker) Yielded() (pauses int64, paused time.Duration) {
	if w.yield == nil {
		return 0, 0
	}
	return w.yield.stats()
}

// Owner is how this worker claims jobs; the dispatcher takes over dead
// workers' jobs in its name.
func (w *Worker) Owner() store.Owner { return w.owner }

// Close stops the worker's write mergers; call it after every handler returned.
func (w *Worker) Close() {
	if w.yield != nil {
		w.yield.close()
	}
	w.close()
}

func (w *Worker) flushStarts(ctx context.Context, ids []int64) ([]startReply, error) {
	jobs, err := w.cfg.Store.StartJobs(ctx, ids, w.owner)
	if err != nil {
		return nil, err
	}
	out := make([]startReply, len(ids))
	for i, id := range ids {
		out[i].job, out[i].ok = jobs[id]
	}
	return out, nil
}

// flushFinishes stores a batch of results. A job id can appear twice (two
// deliveries of one task finishing together): only the first is written,
// as FinishJobs would do for a second call.
func (w *Worker) flushFinishes(ctx context.Context, fs []store.Finish) ([]bool, error) {
	seen := make(map[int64]bool, len(fs))
	unique := fs[:0:0]
	for _, f := range fs {
		if !seen[f.JobID] {
			seen[f.JobID] = true
			unique = append(unique, f)
		}
	}
	stored, err := w.cfg.Store.FinishJobs(ctx, unique)
	if err != nil {
		return nil, err
	}
	out := make([]bool, len(fs))
	for i, f := range fs {
		out[i] = stored[f.JobID]
		stored[f.JobID] = false // a later duplicate in this batch stored nothing
	}
	return out, nil
}

// hold marks a job as running in this process; false if it already is (a
// second task of the job delivered here must not run it twice).
func (w *Worker) hold(id int64) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.held[id] {
		return false
	}
	w.held[id] = true
	return true
}

func (w *Worker) release(id int64) { w.releaseAll([]int64{id}) }

func (w *Worker) releaseAll(ids []int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, id := range ids {
		delete(w.held, id)
	}
}

// releaseStrays lets go, in PostgreSQL, of the live jobs recorded as held
// by this worker that it does not hold: after a failed write or a panic a
// job would otherwise stay held by a live worker that no longer runs it,
// and every other worker would refuse it.
func (w *Worker) releaseStrays(ctx context.Context, log *slog.Logger) {
	w.claims.Lock()
	defer w.claims.Unlock()
	w.mu.Lock()
	keep := make([]int64, 0, len(w.held))
	for id := range w.held {
		keep = append(keep, id)
	}
	w.mu.Unlock()
	ids, err := w.cfg.Store.ReleaseStrays(ctx, w.owner.ID, keep)
	if err != nil {
		log.Warn("stray jobs not released", slog.Any("error", err))
	} else if len(ids) > 0 {
		log.Warn("jobs held in PostgreSQL but not running here released", slog.Any("job_ids", ids))
	}
}

// Shutdown makes every running search stop; their jobs keep their last
// checkpoint and are handed back to the queue for another worker.
func (w *Worker) Shutdown() { close(w.stopping) }

// HandleSolve is the asynq handler of queue.TypeSolve.
func (w *Worker) HandleSolve(ctx context.Context, t *asynq.Task) error {
	if w.yield != nil && isInteractive(ctx) {
		defer w.yield.begin()()
	}
	p, err := queue.PayloadOf(t)
	if err != nil {
		return err
	}
	if p.IsBundle() {
		return w.handleBundle(ctx, p)
	}
	return w.handleJob(ctx, p.JobID)
}

// handleJob runs a task that carries one job.
func (w *Worker) handleJob(ctx context.Context, id int64) error {
	log := w.cfg.Logger.With(slog.Int64("job_id", id))
	if !w.hold(id) {
		log.Info("task dropped: this worker is running the job already")
		return nil
	}
	defer w.release(id)
	w.claims.RLock()
	start, err := w.starts.do(ctx, id)
	w.claims.RUnlock()
	if err != nil {
		return err
	}
	if !start.ok {
		w.logNotStarted(ctx, log, id)
		return nil
	}
	job := start.job
	log = log.With(slog.String("kind", job.Kind), slog.Int("attempt", int(job.Attempts)))
	if job.Attempts > job.MaxAttempts {
		return w.giveUp(ctx, log, job)
	}
	a := w.run(ctx, log, job, nil, false)
	act, err := w.settle(ctx, log, a, false)
	if err != nil {
		return errors.Join(a.err, err)
	}
	if act == actStore {
		return w.store(ctx, log, []attempt{a})
	}
	return taskError(act, a.err)
}

// logNotStarted says why a task's job did not start.
func (w *Worker) logNotStarted(ctx context.Context, log *slog.Logger, id int64) {
	state, owner, err := w.cfg.Store.JobHolder(ctx, id)
	switch {
	case err != nil:
		log.Debug("task for a missing job dropped", slog.Any("error", err))
	case state.Live():
		log.Info("task dropped: the job is held by another live worker", slog.String("holder", owner))
	default:
		log.Debug("task for a finished or canceled job dropped", slog.String("state", string(state)))
	}
}

// giveUp fails a job whose attempts are exhausted.
func (w *Worker) giveUp(ctx context.Context, log *slog.Logger, job store.RunnableJob) error {
	log.Warn("job failed: attempts exhausted")
	last := job.LastError
	if last == "" {
		last = "none recorded (the worker died during the attempt?)"
	}
	msg := fmt.Sprintf("gave up after %d attempts; last error: %s", job.MaxAttempts, last)
	return errors.Join(w.cfg.Store.FailJob(ctx, job.ID, msg, true), asynq.SkipRetry)
}

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

// InProcessSlice is how long a bundle's job may search in the worker
// process before it starts over in a solve process (when the worker has
// them); the bundle's later jobs then go to solve processes at once. Most
// jobs of a bundle take microseconds, less than the round trip to a child
// (about 40 µs of CPU: end-to-end throughput of tiny levels fell by a
// quarter when every job went to a child), so they stay here; a bundle of
// real searches costs this process at most one slice of nice-0 CPU.
const InProcessSlice = 5 * time.Millisecond

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
	// errMoveToChild stops the search of a bundle's job that ran past
	// InProcessSlice in the worker process, to go on in a child (see run).
	errMoveToChild = errors.New("slow: search moves to a solve process")
)

// run solves one job and verifies the result. A bundle passes onSlow, which
// the job's watcher calls once the search has run for SlowAfter (see
// bundle.go), and here: whether the job may start in this process even
// when it is bulk work (see InProcessSlice); a solo job nil and false.
func (w *Worker) run(ctx context.Context, log *slog.Logger, job store.RunnableJob, onSlow func() bool, here bool) (a attempt) {
	a.job = job
	w.solving.Add(1)
	defer w.solving.Add(-1)
	kind, ok := w.cfg.Registry.Kind(job.Kind)
	if !ok {
		a.err = fmt.Errorf("%w: kind %q is not registered in this worker", errFinal, job.Kind)
		return a
	}
	// Bulk searches run in a child process when the worker has a pool,
	// except a bundle's jobs while they stay within InProcessSlice.
	inChild := w.cfg.Processes != nil && !isInteractive(ctx)
	startHere := inChild && here

	// The search does not stop on the task's context alone: asynq cancels it
	// on POST …/cancel through Redis pub/sub, which ignores the DB index, so
	// a cancel of the same task id by another installation sharing the Redis
	// server would reach this one too. The watcher asks PostgreSQL first.
	solveCtx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	defer cancel(nil)
	hereCtx := solveCtx
	if startHere {
		var moveOut context.CancelCauseFunc
		hereCtx, moveOut = context.WithCancelCause(solveCtx)
		defer moveOut(nil)
		slice := time.AfterFunc(InProcessSlice, func() { moveOut(errMoveToChild) })
		defer slice.Stop()
	}
	watched := make(chan bool, 1)
	go func() { watched <- w.watch(solveCtx, ctx, cancel, job.ID, onSlow) }()
	defer func() { cancel(nil); a.slow = <-watched }()

	seq := job.CheckSeq
	checkpoint := func(blob []byte) {
		seq++
		nodes := solver.CheckpointNodes(blob)
		if _, err := w.cfg.Store.SaveCheckpoint(solveCtx, job.ID, seq, nodes, blob); err != nil {
			log.Warn("checkpoint not saved", slog.Any("error", err))
			return
		}
		if w.cfg.Observer != nil {
			w.cfg.Observer.Checkpointed(job.Kind)
		}
	}
	req := solveproc.Request{
		JobID:           job.ID,
		Kind:            job.Kind,
		Level:           job.Body,
		Budget:          job.Budget,
		CheckpointEvery: w.cfg.CheckpointEvery,
		Resume:          job.Checkpoint,
		Playouts:        w.playouts(job.Playouts),
		PlayoutWorkers:  w.playoutWorkers(),
	}
	var res solver.Result
	var err error
	if inChild && !startHere {
		res, err = w.solveInChild(solveCtx, log, req, checkpoint)
	} else {
		res, err = solveproc.Run(hereCtx, w.cfg.Registry, req, checkpoint, log)
		// Past the slice the job moves even when Run returned no error:
		// the slice may have cut its difficulty figures short, not its
		// search.
		if !errors.Is(err, errFinal) && errors.Is(context.Cause(hereCtx), errMoveToChild) && solveCtx.Err() == nil {
			log.Debug("job of a bundle past the in-process slice: its search starts over in a solve process")
			a.moved = true
			res, err = w.solveInChild(solveCtx, log, req, checkpoint)
		}
	}
	a.res = res
	if err != nil {
		switch cause := context.Cause(solveCtx); {
		case errors.Is(err, errFinal):
			a.err = err
		case errors.Is(cause, errCanceled), errors.Is(cause, errHandedBack), errors.Is(cause, errTakenOver):
			a.err = cause
		case ctx.Err() != nil:
			// asynq cancels the task's context on POST …/cancel (often
			// before our own poll notices) and on its timeout.
			a.err = fmt.Errorf("%w: %w", errTaskEnded, ctx.Err())
			if w.canceled(job.ID) {
				a.err = errCanceled
			}
		default:
			a.err = fmt.Errorf("solver: %w", err)
		}
		return a
	}
	a.version = kind.Version()
	return a
}

// solveInChild runs a search in a child process of the pool, or in this
// process when the pool cannot start one.
func (w *Worker) solveInChild(ctx context.Context, log *slog.Logger, req solveproc.Request, checkpoint func([]byte)) (solver.Result, error) {
	res, err := w.cfg.Processes.Solve(ctx, req, checkpoint)
	if errors.Is(err, solveproc.ErrNoChild) {
		log.Warn("no solve process: the search runs in the worker process", slog.Any("error", err))
		return solveproc.Run(ctx, w.cfg.Registry, req, checkpoint, log)
	}
	return res, err
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
