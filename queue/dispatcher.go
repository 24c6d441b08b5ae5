package queue

import (
	"context"
	"log/slog"
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
}

// Dispatcher keeps asynq in step with PostgreSQL: it hands new bulk jobs to
// asynq, and re-enqueues live jobs whose task was lost. It is the outbox of
// the batch API and the reconciler (docs/service.md) in one loop. Any number
// of dispatchers may run at once (one per worker process): each round
// claims its jobs with SKIP LOCKED.
type Dispatcher struct {
	cfg DispatcherConfig
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
	return &Dispatcher{cfg: cfg}
}

// Run dispatches until ctx ends. Errors are logged and retried after a pause.
func (d *Dispatcher) Run(ctx context.Context) {
	for ctx.Err() == nil {
		n, err := d.Round(ctx)
		if err != nil && ctx.Err() == nil {
			d.cfg.Logger.Warn("dispatch round failed", slog.Any("error", err))
		}
		if n < d.cfg.Page || err != nil {
			select {
			case <-ctx.Done():
			case <-time.After(d.cfg.Poll):
			}
		}
	}
}

// task is one task to enqueue: what it carries, its queue and the largest
// time budget of its jobs.
type task struct {
	payload  Payload
	priority string
	maxMS    int64
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
			tasks = append(tasks, task{payload: p, priority: j.Priority})
		}
		budget := j.MaxMS
		if budget <= 0 {
			budget = DefaultMaxMS // the kind's default, at most this
		}
		tasks[i].maxMS = max(tasks[i].maxMS, budget)
	}
	return tasks
}

// Round claims one page of jobs and makes sure each has a live task. It
// returns how many jobs it claimed.
func (d *Dispatcher) Round(ctx context.Context) (int, error) {
	jobs, err := d.cfg.Store.ClaimLiveJobs(ctx, time.Now().Add(-d.cfg.Stale), d.cfg.Page)
	if err != nil || len(jobs) == 0 {
		return 0, err
	}
	var (
		wg        sync.WaitGroup
		mu        sync.Mutex
		firstErr  error
		recovered int
		next      = make(chan task)
	)
	for range d.cfg.Parallel {
		wg.Go(func() {
			for t := range next {
				live, err := d.cfg.Client.EnqueueTask(ctx, t.payload, t.priority, t.maxMS)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				if err == nil && !live {
					recovered++
				}
				mu.Unlock()
			}
		})
	}
	for _, t := range tasksOf(jobs) {
		next <- t
	}
	close(next)
	wg.Wait()
	d.cfg.Logger.Debug("dispatched", slog.Int("claimed", len(jobs)), slog.Int("tasks_enqueued", recovered))
	// A job whose enqueue failed keeps its fresh enqueued_at and is retried
	// once it goes stale.
	return len(jobs), firstErr
}
