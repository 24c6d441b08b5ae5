// Package worker runs solve jobs: the asynq handler loads a job (or a
// bundle of a batch's jobs, see bundle.go) from PostgreSQL, runs its
// kind's solver with the job's budget, checkpoints and cancellation,
// replays the plan through the kind's simulator, and stores the result and
// the job's new state in one statement.
package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/hibiken/asynq"

	"github.com/puzzled/puzzled/queue"
	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/store"
)

// Config configures a Worker.
type Config struct {
	Store    *store.Store
	Registry *solver.Registry
	Logger   *slog.Logger
	// CheckpointEvery is the least time between two checkpoints of a search
	// (default 5 s).
	CheckpointEvery time.Duration
	// CancelPoll is how often a running job's state is checked for a cancel
	// (default 500 ms).
	CancelPoll time.Duration
	// Observer, if set, is told about every finished solve (metrics).
	Observer Observer
	// DifficultyPlayouts is the number of playouts per player of the
	// difficulty figures (0: difficulty.DefaultPlayouts; negative: none).
	DifficultyPlayouts int
}

// Observer receives events for metrics.
type Observer interface {
	Solved(kind string, verdict solver.Verdict, elapsed time.Duration, nodes int64)
	Checkpointed(kind string)
}

// Worker handles solve tasks.
type Worker struct {
	cfg Config
	// stopping is closed when the process shuts down: running searches
	// stop at once and their jobs are handed back (see Shutdown).
	stopping chan struct{}
	// starts and finishes batch the store writes of concurrent handlers.
	starts   *batcher[int64, startReply]
	finishes *batcher[store.Finish, bool]
	close    context.CancelFunc
}

type startReply struct {
	job store.RunnableJob
	ok  bool // false: the job is final or gone
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
	w := &Worker{cfg: cfg, stopping: make(chan struct{})}
	w.starts = newBatcher(256, w.flushStarts)
	w.finishes = newBatcher(256, w.flushFinishes)
	life, cancel := context.WithCancel(context.Background())
	w.close = cancel
	go w.starts.run(life)
	go w.finishes.run(life)
	return w
}

// Close stops the worker's batchers; call it after every handler returned.
func (w *Worker) Close() { w.close() }

func (w *Worker) flushStarts(ctx context.Context, ids []int64) ([]startReply, error) {
	jobs, err := w.cfg.Store.StartJobs(ctx, ids)
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

// Shutdown makes every running search stop; their jobs keep their last
// checkpoint and are handed back to the queue for another worker.
func (w *Worker) Shutdown() { close(w.stopping) }

// errHandedBack is the cause of a search stopped by Shutdown.
var errHandedBack = errors.New("worker: shutting down, job handed back")

// HandleSolve is the asynq handler of queue.TypeSolve.
func (w *Worker) HandleSolve(ctx context.Context, t *asynq.Task) error {
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
	start, err := w.starts.do(ctx, id)
	if err != nil {
		return err
	}
	if !start.ok {
		log.Debug("task for a finished or canceled job dropped")
		return nil
	}
	job := start.job
	log = log.With(slog.String("kind", job.Kind), slog.Int("attempt", int(job.Attempts)))
	if job.Attempts > job.MaxAttempts {
		log.Warn("job failed: attempts exhausted")
		last := job.LastError
		if last == "" {
			last = "none recorded (the worker died during the attempt?)"
		}
		msg := fmt.Sprintf("gave up after %d attempts; last error: %s", job.MaxAttempts, last)
		return errors.Join(w.cfg.Store.FailJob(ctx, id, msg, true), asynq.SkipRetry)
	}
	res, version, err := w.run(ctx, log, job)
	switch {
	case errors.Is(err, errHandedBack):
		if rerr := w.cfg.Store.RequeueJob(context.WithoutCancel(ctx), id); rerr != nil {
			return errors.Join(err, rerr)
		}
		log.Info("job handed back at shutdown")
		// Revoking deletes the task, so the job's task id is free and any
		// worker's dispatcher re-enqueues it at once (enqueued_at is NULL).
		return fmt.Errorf("%w: %w", err, asynq.RevokeTask)
	case errors.Is(err, errCanceled):
		log.Info("job canceled while running")
		return nil
	case errors.Is(err, errFinal):
		log.Error("job failed", slog.Any("error", err))
		return errors.Join(w.cfg.Store.FailJob(ctx, id, err.Error(), true), asynq.SkipRetry)
	case err != nil:
		log.Warn("attempt failed, will retry", slog.Any("error", err))
		return errors.Join(err, w.cfg.Store.FailJob(ctx, id, err.Error(), false))
	}
	stored, err := w.finishes.do(ctx, store.Finish{JobID: id, SolverVersion: version, Result: res})
	if err != nil {
		return err
	}
	if w.cfg.Observer != nil {
		w.cfg.Observer.Solved(job.Kind, res.Verdict, time.Duration(res.Stats.ElapsedMS)*time.Millisecond, res.Stats.Nodes)
	}
	log.Debug("job done", slog.String("verdict", string(res.Verdict)), slog.Int64("nodes", res.Stats.Nodes),
		slog.Int64("elapsed_ms", res.Stats.ElapsedMS), slog.Bool("stored", stored))
	return nil
}

var (
	errCanceled = errors.New("job canceled")
	// errFinal marks failures that a retry cannot fix (bad stored level,
	// a plan that fails replay): the job fails at once.
	errFinal = errors.New("permanent failure")
)

// run solves one job and verifies the result.
func (w *Worker) run(ctx context.Context, log *slog.Logger, job store.RunnableJob) (solver.Result, string, error) {
	kind, ok := w.cfg.Registry.Kind(job.Kind)
	if !ok {
		return solver.Result{}, "", fmt.Errorf("%w: kind %q is not registered in this worker", errFinal, job.Kind)
	}
	lvl, err := kind.Parse(job.Body)
	if err != nil {
		return solver.Result{}, "", fmt.Errorf("%w: stored level does not parse: %w", errFinal, err)
	}
	solveCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go w.watch(solveCtx, cancel, job.ID)

	seq := job.CheckSeq
	opts := solver.Options{
		Budget:          job.Budget,
		CheckpointEvery: w.cfg.CheckpointEvery,
		Resume:          job.Checkpoint,
		Checkpoint: func(blob []byte) {
			seq++
			nodes := solver.CheckpointNodes(blob)
			if _, err := w.cfg.Store.SaveCheckpoint(ctx, job.ID, seq, nodes, blob); err != nil {
				log.Warn("checkpoint not saved", slog.Any("error", err))
				return
			}
			if w.cfg.Observer != nil {
				w.cfg.Observer.Checkpointed(job.Kind)
			}
		},
	}
	if opts.Budget == (solver.Budget{}) {
		opts.Budget = queue.DefaultBudget(job.Kind)
	}
	res, err := kind.Solve(solveCtx, lvl, opts)
	if err != nil && opts.Resume != nil && solveCtx.Err() == nil {
		// A checkpoint this solver cannot use (written by an older version
		// of it, say) must not fail the job: start the search over.
		log.Warn("checkpoint not usable, search starts over", slog.Any("error", err))
		opts.Resume = nil
		res, err = kind.Solve(solveCtx, lvl, opts)
	}
	if err != nil {
		switch cause := context.Cause(solveCtx); {
		case errors.Is(cause, errCanceled), errors.Is(cause, errHandedBack):
			return res, "", cause
		case ctx.Err() != nil:
			// asynq cancels the task's context on POST …/cancel (often
			// before our own poll notices) and on its timeout.
			if w.canceled(job.ID) {
				return res, "", errCanceled
			}
			return res, "", fmt.Errorf("task context ended: %w", ctx.Err())
		}
		return res, "", fmt.Errorf("solver: %w", err)
	}
	if err := kind.Verify(lvl, res); err != nil {
		return res, "", fmt.Errorf("%w: result failed verification (solver bug): %w", errFinal, err)
	}
	res.Difficulty = w.rate(solveCtx, log, kind, lvl, res, opts.Budget)
	return res, kind.Version(), nil
}

// canceled reports whether the job was canceled in PostgreSQL.
func (w *Worker) canceled(id int64) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	state, err := w.cfg.Store.JobState(ctx, id)
	return err == nil && state == store.StateCanceled
}

// watch cancels a running search when its job is canceled in PostgreSQL or
// the worker shuts down.
func (w *Worker) watch(ctx context.Context, cancel context.CancelCauseFunc, id int64) {
	tick := time.NewTicker(w.cfg.CancelPoll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.stopping:
			cancel(errHandedBack)
			return
		case <-tick.C:
			// A bundle's job stays queued until it turns out slow.
			state, err := w.cfg.Store.JobState(ctx, id)
			if err == nil && state != store.StateRunning && state != store.StateQueued {
				cancel(errCanceled)
				return
			}
		}
	}
}
