package queue

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/puzzled/puzzled/store"
)

// DispatcherConfig configures a Dispatcher.
type DispatcherConfig struct {
	Store  *store.Store
	Client *Client
	Logger *slog.Logger
	// Poll is the pause between rounds that found nothing to do.
	Poll time.Duration
	// Stale is how long a job handed to asynq is trusted before the
	// dispatcher checks again that its task is still live (after a Redis
	// flush or restart without persistence it is not).
	Stale time.Duration
	// Page is how many jobs one round claims; Parallel how many enqueue at once.
	Page, Parallel int
	// Owner is the worker process the dispatcher runs in: each round it
	// takes over the jobs of dead workers in its name. Empty: it does not.
	Owner store.Owner
}

// Dispatcher keeps asynq in step with PostgreSQL: it hands new jobs to
// asynq (bulk work as it is admitted, shared between projects: admit.go),
// re-enqueues live jobs whose task was lost, and hands the jobs of dead
// workers to live ones. It is the outbox of the batch API and the
// reconciler (docs/service.md) in one loop. Any number of dispatchers may
// run at once (one per worker process): each round claims its jobs with
// SKIP LOCKED.
//
// Three things make a lost job run again within seconds rather than after
// Stale: a dead worker's jobs are taken over as soon as its heartbeat is
// DeadAfter old (store.TakeOverJobs), the jobs of tasks a worker took from
// Redis and died with before it started them are sent again once their
// asynq lease has gone LostAfter without being extended (recoverLost), and
// a Redis that lost its data (RedisLost) makes the next rounds sweep every
// live job, as if all were stale. None starts a job twice: a job held by a
// live worker is refused by store.StartJobs whatever task asks for it.
type Dispatcher struct {
	cfg DispatcherConfig
	// sweepBefore: jobs last enqueued before it are re-enqueued now (set
	// when Redis lost its data, cleared when the sweep is through).
	sweepBefore time.Time
	// compacted: when the count rows were last folded; dropped: when the
	// blobs of final jobs' checkpoints were last dropped.
	compacted, dropped time.Time
	// generationsAt is when the running generations last had their task
	// enqueued again (dispatch_generations.go).
	generationsAt time.Time
	// redisSince is when the dispatcher's calls to Redis last began to
	// succeed without a break; lostAt when it last looked for lost tasks
	// (dispatch_lost.go).
	redisSince, lostAt time.Time
	// adm is the dispatcher's view of the bulk queue, for the admission
	// of bulk work (admit.go).
	adm admission
	// fair is what the dispatcher remembers of the share of bulk work
	// between projects (admit.go).
	fair fairShare
	// wake ends the pause between rounds early (Wake).
	wake chan struct{}
}

// NewDispatcher fills defaults: poll 200 ms, stale 60 s, page 1000, 8 parallel.
func NewDispatcher(cfg DispatcherConfig) *Dispatcher {
	if cfg.Poll <= 0 {
		cfg.Poll = 200 * time.Millisecond
	}
	if cfg.Stale <= 0 {
		cfg.Stale = time.Minute
	}
	if cfg.Page <= 0 {
		cfg.Page = 1000
	}
	if cfg.Parallel <= 0 {
		cfg.Parallel = 8
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Dispatcher{cfg: cfg, wake: make(chan struct{}, 1)}
}

// Wake ends the dispatcher's pause between rounds, if it is in one: new
// work was stored (queue.Client.BatchNotices calls it). It never blocks.
func (d *Dispatcher) Wake() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// Run dispatches until ctx ends. Errors are logged and retried after a pause.
func (d *Dispatcher) Run(ctx context.Context) {
	var full time.Time // when the last whole round began
	for ctx.Err() == nil {
		var n int
		var err error
		rctx, cancel := roundContext(ctx)
		if d.adm.backlog && time.Since(full) < d.cfg.Poll {
			// Between whole rounds, a refill of the bulk queue is all
			// that is due: the other chores wait for the next one.
			n, err = d.admitRound(rctx)
		} else {
			full = time.Now()
			n, err = d.Round(rctx)
		}
		cancel()
		if err != nil && ctx.Err() == nil {
			d.cfg.Logger.Warn("dispatch round failed", slog.Any("error", err))
		}
		switch {
		case n > 0 && err == nil:
		case d.adm.backlog && err == nil:
			d.waitForRoom(ctx)
		default:
			select {
			case <-ctx.Done():
			case <-d.wake:
			case <-time.After(d.cfg.Poll):
			}
		}
	}
}

// roundGrace is how long a round begun before its dispatcher was told to
// stop may go on: a healthy round takes milliseconds; one stuck on an
// unreachable PostgreSQL or Redis is cut then.
const roundGrace = 2 * time.Second

// roundContext is the context of one round: it ends roundGrace after ctx
// does, not with it. A round canceled half-way leaves jobs stamped as
// handed to asynq with no task until the stale check a minute later: a
// claim's COMMIT may reach PostgreSQL while the canceled client reports an
// error (the jobs are stamped, and the round never learns which), and a
// hand-over cut short cannot unstamp what it did not enqueue. A worker
// stops its dispatcher while its handlers hand jobs back, which is when
// that happened (worker TestShutdownHandsTheBundleBack).
func roundContext(ctx context.Context) (context.Context, context.CancelFunc) {
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, func() { time.AfterFunc(roundGrace, cancel) })
	return rctx, func() { stop(); cancel() }
}

// task is one task to enqueue: what it carries, its queue and the largest
// time budget of its jobs.
type task struct {
	payload Payload
	queue   string
	maxMS   int64
}

// tasksOf groups claimed jobs by the task that carries them, in claim order.
func tasksOf(jobs []store.LiveJob) []task {
	var tasks []task
	index := map[Payload]int{}
	for _, j := range jobs {
		p := Carrier(j)
		i, ok := index[p]
		if !ok {
			i = len(tasks)
			index[p] = i
			tasks = append(tasks, task{payload: p, queue: QueueOf(j)})
		}
		tasks[i].maxMS = max(tasks[i].maxMS, budgetBound(j.MaxMS))
		if QueueOf(j) == Resumed {
			tasks[i].queue = Resumed
		}
	}
	return tasks
}

// Round takes over the jobs of dead workers, claims one page of jobs that
// travel alone and one of batches (whose bundles travel in a task each),
// admits bulk work as the bulk queue has room (admit.go), and makes sure
// each has a live task. It returns how many jobs and batches it claimed
// or admitted.
func (d *Dispatcher) Round(ctx context.Context) (int, error) {
	if d.cfg.Owner.ID != "" {
		ids, err := d.cfg.Store.TakeOverJobs(ctx, d.cfg.Owner.ID, d.cfg.Owner.DeadAfter, d.cfg.Stale)
		if err != nil {
			return 0, err
		}
		if len(ids) > 0 {
			d.cfg.Logger.Warn("jobs of a dead worker taken over; they resume first", slog.Int("jobs", len(ids)),
				slog.Any("job_ids", ids[:min(len(ids), 10)]))
		}
	}
	lost, err := d.cfg.Client.RedisLost(ctx)
	if err != nil {
		d.redisSince = time.Time{}
		return 0, err
	}
	if d.redisSince.IsZero() {
		d.redisSince = time.Now()
	}
	if lost {
		d.sweepBefore = time.Now()
		d.generationsAt = time.Time{}
		d.cfg.Logger.Warn("Redis marker missing (first use, or Redis lost its data): every live job is enqueued again")
	}
	if err := d.recoverLost(ctx); err != nil && ctx.Err() == nil {
		// Not a reason to stop dispatching: the next look is a second away.
		d.cfg.Logger.Warn("no look for tasks lost with their worker", slog.Any("error", err))
	}
	if err := d.requeueGenerations(ctx); err != nil {
		return 0, err
	}
	staleBefore := time.Now().Add(-d.cfg.Stale)
	if d.sweepBefore.After(staleBefore) {
		staleBefore = d.sweepBefore
	}
	jobs, err := d.cfg.Store.ClaimLiveJobs(ctx, d.cfg.Owner.ID, staleBefore, d.cfg.Page)
	if err != nil {
		return 0, err
	}
	batches, err := d.cfg.Store.ClaimLiveBatches(ctx, d.cfg.Owner.ID, staleBefore, batchesPerRound)
	if err != nil {
		return 0, err
	}
	if len(jobs) < d.cfg.Page && len(batches) < batchesPerRound {
		d.sweepBefore = time.Time{} // the sweep is through
	}
	// A bulk batch none of whose bundles is admitted yet has nothing to send.
	batches = slices.DeleteFunc(batches, func(b store.LiveBatch) bool { return len(b.Bundles) == 0 })
	admittedJobs, admittedBatches, err := d.admit(ctx)
	if err != nil && ctx.Err() == nil {
		d.cfg.Logger.Warn("bulk work not admitted", slog.Any("error", err))
	}
	jobs, batches = append(jobs, admittedJobs...), append(batches, admittedBatches...)
	claimed := len(jobs) + len(batches)
	d.compactNow(ctx)
	d.dropCheckpointsNow(ctx)
	if claimed == 0 {
		return 0, nil
	}
	return claimed, d.hand(ctx, jobs, batches)
}

// hand makes sure the claimed jobs and batches have a live task; what
// could not be handed to asynq is unstamped, for the next round.
func (d *Dispatcher) hand(ctx context.Context, jobs []store.LiveJob, batches []store.LiveBatch) error {
	var (
		wg        sync.WaitGroup
		mu        sync.Mutex
		firstErr  error
		recovered int
		failed    []task
		next      = make(chan task)
	)
	for range d.cfg.Parallel {
		wg.Go(func() {
			for t := range next {
				live, err := d.cfg.Client.EnqueueTask(ctx, t.payload, t.queue, t.maxMS)
				mu.Lock()
				if err != nil {
					firstErr = cmp.Or(firstErr, err)
					failed = append(failed, t)
				}
				if err == nil && !live {
					recovered++
				}
				mu.Unlock()
			}
		})
	}
	for _, t := range append(tasksOf(jobs), bundleTasks(batches)...) {
		next <- t
	}
	close(next)
	wg.Wait()
	d.cfg.Logger.Debug("dispatched", slog.Int("jobs", len(jobs)), slog.Int("batches", len(batches)),
		slog.Int("tasks_enqueued", recovered))
	if len(failed) > 0 {
		// Their jobs and batches were stamped enqueued in this round:
		// left so, they would wait a whole Stale (a minute) for a task, as
		// the multi-host suite saw when Redis stopped mid-round. Unstamped,
		// the next round tries them first.
		var jobs, batches []int64
		for _, t := range failed {
			if t.payload.IsBundle() {
				batches = append(batches, t.payload.BatchID)
			} else {
				jobs = append(jobs, t.payload.JobID)
			}
		}
		// On a context of its own: a hand-over cut by the end of its
		// round must still unstamp what it did not enqueue.
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), unstampTimeout)
		defer cancel()
		if err := d.cfg.Store.Unstamp(uctx, jobs, batches); err != nil {
			firstErr = errors.Join(firstErr, err)
		}
	}
	return firstErr
}

// unstampTimeout bounds the unstamp of what a round could not hand over.
const unstampTimeout = 2 * time.Second

// batchesPerRound caps the batches a round claims: each may have up to
// thousands of bundles to hand over.
const batchesPerRound = 16

// bundleTasks are the tasks of the bundles of claimed batches.
func bundleTasks(batches []store.LiveBatch) []task {
	var tasks []task
	for _, b := range batches {
		for _, first := range b.Bundles {
			tasks = append(tasks, task{payload: Payload{BatchID: b.BatchID, Bundle: first / BundleSize},
				queue: string(b.Priority), maxMS: budgetBound(b.MaxMS)})
		}
	}
	return tasks
}

// dropEvery is how often a dispatcher drops the checkpoint blobs of final
// jobs (store.DropFinalCheckpoints), dropLimit how many at most a time: a
// blob is dropped within about dropEvery of its job's end, and a backlog
// (the blobs kept before this chore existed) goes at dropLimit a round
// per dispatcher, in short statements.
const (
	dropEvery = 10 * time.Second
	dropLimit = 1000
)

// dropCheckpointsNow drops final jobs' checkpoint blobs when dropEvery has
// passed, at once again while a full page was dropped.
func (d *Dispatcher) dropCheckpointsNow(ctx context.Context) {
	if time.Since(d.dropped) < dropEvery {
		return
	}
	n, err := d.cfg.Store.DropFinalCheckpoints(ctx, dropLimit)
	if err != nil && ctx.Err() == nil {
		d.cfg.Logger.Warn("checkpoints of final jobs not dropped", slog.Any("error", err))
	}
	if n < dropLimit {
		d.dropped = time.Now()
	}
}

// compactEvery is how often a dispatcher folds the count rows
// (store.CompactCounts); one dispatcher at a time does.
const compactEvery = 5 * time.Second

// compactNow folds the count rows when compactEvery has passed.
func (d *Dispatcher) compactNow(ctx context.Context) {
	if time.Since(d.compacted) < compactEvery {
		return
	}
	d.compacted = time.Now()
	if _, err := d.cfg.Store.CompactCounts(ctx, 1000); err != nil && ctx.Err() == nil {
		d.cfg.Logger.Warn("job counts not compacted", slog.Any("error", err))
	}
}
