// Package worker runs solve jobs: the asynq handler claims a job (job.go)
// or a bundle of a batch's jobs (bundle.go) in PostgreSQL, runs its kind's
// solver with the job's budget, checkpoints and cancellation (run.go), in
// one of three ways (strategy.go: in this process, in a solve process, or
// here for a slice first), replays the plan through the kind's simulator,
// and settles the job (settle.go): its result stored, or the job requeued,
// failed or retried. Every worker process beats in PostgreSQL
// (liveness.go): a job records the worker that holds it (held.go), and a
// dead worker's jobs are taken over within seconds.
package worker

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hibiken/asynq"

	"github.com/puzzled/puzzled/internal/solveproc"
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
	// SlowAfter is how long a job of a bundle may run before it counts as
	// slow (default SlowAfter); InProcessSlice how long a bundle's job may
	// search in this process before it moves to a solve process (default
	// InProcessSlice). Tests set them so that which rule fires does not
	// depend on how busy the machine is.
	SlowAfter      time.Duration
	InProcessSlice time.Duration
	// DeadAfter is how old a worker's last heartbeat must be for the
	// others to judge it dead and take its jobs over (default DeadAfter).
	// Every worker of an installation must use the same.
	DeadAfter time.Duration
	// UnreachableAfter is how old this worker's last heartbeat written may
	// be before it counts PostgreSQL as out of its reach and takes no more
	// tasks (reach.go; default three beats). A test that needs a worker
	// which takes tasks it cannot claim, as one does in the moment before
	// it notices, sets it long.
	UnreachableAfter time.Duration
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
	finishes *writeMerger[store.Finish, finishReply]
	close    context.CancelFunc

	// held is what this process holds: jobs it runs, and the jobs of the
	// bundles it works through. A job that PostgreSQL says it holds but
	// held does not (its handler failed to write, or panicked) is let go
	// at the next beat (releaseStrays), so that a retry may run it anywhere.
	mu   sync.Mutex
	held map[int64]bool
	// bundles are the bundles this process works through (see held).
	bundles map[store.BundleKey]bool
	// claims is read-locked around a claim in PostgreSQL and the matching
	// hold, and write-locked by releaseStrays, which must not see one
	// without the other.
	claims sync.RWMutex
	// solving counts the jobs in run now: the difficulty playouts of one
	// take the cores the others leave free (see playoutWorkers).
	solving atomic.Int64
	// yield stops the bulk searches for interactive work; nil: never.
	yield *yielder
	// lastBeat is when the last heartbeat was written (Unix ns), and
	// givingBack whether tasks are given back meanwhile, givenBack how
	// many were (reach.go).
	lastBeat   atomic.Int64
	givingBack atomic.Bool
	givenBack  atomic.Int64
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
	if cfg.SlowAfter <= 0 {
		cfg.SlowAfter = SlowAfter
	}
	if cfg.InProcessSlice <= 0 {
		cfg.InProcessSlice = InProcessSlice
	}
	if cfg.DeadAfter <= 0 {
		cfg.DeadAfter = DeadAfter
	}
	if cfg.UnreachableAfter <= 0 {
		cfg.UnreachableAfter = unreachableAfter
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.ID == "" {
		cfg.ID = newWorkerID()
	}
	w := &Worker{cfg: cfg, owner: store.Owner{ID: cfg.ID, DeadAfter: cfg.DeadAfter}, stopping: make(chan struct{}),
		held: map[int64]bool{}, bundles: map[store.BundleKey]bool{}}
	if cfg.Processes != nil && cfg.YieldToInteractive {
		w.yield = newYielder(cfg.Processes)
	}
	w.starts = newWriteMerger(256, w.flushStarts)
	w.finishes = newWriteMerger(256, w.flushFinishes)
	life, cancel := context.WithCancel(context.Background())
	w.close = cancel
	go w.starts.run(life)
	for range finishFlushers {
		go w.finishes.run(life)
	}
	return w
}

// finishFlushers is how many result flushes may be in flight at once. With
// one, every slot waited for the flush before its own: under load a bundle
// of 64 jobs that ran for 4.6 ms waited a median 92 ms for its results to
// be stored (84 % of the slots' time in (b)), while PostgreSQL ran those
// flushes one at a time on one core. With two, the second flush takes the
// calls that arrive while the first is in flight: (b) of `puzzled bench`
// median +13 % on 2 CPUs (docs/benchmarks.md). With four, PostgreSQL spent
// a third more CPU a job on the same machine (its flushes contend for the
// same batch's rows and index pages) and (b) fell below one flusher's.
const finishFlushers = 2

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
