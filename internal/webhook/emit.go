package webhook

import (
	"context"
	"log/slog"
	"time"

	"github.com/puzzled/puzzled/queue"
	"github.com/puzzled/puzzled/store"
)

// Emitter turns what happened into events and hands them to asynq. It
// never runs on the path that solves levels: it reads what the workers
// wrote, after they committed.
//
// It wakes on the notifications of jobs becoming final (store.Listener
// keys "b<batch>", "j<job>") for the batches and jobs that have callbacks
// (known: refreshed on "w", the notice of new callbacks), on a timer
// (Config.JobEventsWait, for batched job events), and every Config.Poll it
// looks at every callback, in case a notification was lost. Any number of
// emitters may run (one per worker process): the store takes each piece
// of work with SKIP LOCKED, and a callback's final event is unique.
type Emitter struct {
	cfg   Config
	store *store.Store
	queue *queue.Client
	// known are the notification keys of the batches and jobs that have
	// callbacks without a final event.
	known map[string]bool
}

// NewEmitter returns an emitter for cfg (defaults filled).
func NewEmitter(st *store.Store, qc *queue.Client, cfg Config) *Emitter {
	return &Emitter{cfg: cfg.WithDefaults(), store: st, queue: qc, known: map[string]bool{}}
}

// Run emits until ctx ends, woken by l's notifications.
func (e *Emitter) Run(ctx context.Context, l *store.Listener) {
	keys, stop := l.Keys(4096)
	defer stop()
	poll := time.NewTicker(e.cfg.Poll)
	defer poll.Stop()
	tick := time.NewTicker(e.cfg.JobEventsWait)
	defer tick.Stop()
	full := true
	dirty := map[string]bool{}
	for {
		e.round(ctx, full, dirty)
		full, dirty = false, map[string]bool{}
		select {
		case <-ctx.Done():
			return
		case <-poll.C:
			full = true
		case <-tick.C:
		case k := <-keys:
			full = e.note(ctx, k, dirty)
		drain: // take what else arrived, for one round
			for {
				select {
				case k := <-keys:
					full = e.note(ctx, k, dirty) || full
				default:
					break drain
				}
			}
		}
	}
}

// note records a notification key; it returns true when everything must
// be looked at.
func (e *Emitter) note(ctx context.Context, key string, dirty map[string]bool) bool {
	switch {
	case key == store.AnyKey:
		return true
	case key == store.NewWebhookKey:
		before := e.known
		if err := e.refresh(ctx); err != nil {
			return true
		}
		for k := range e.known {
			if !before[k] {
				dirty[k] = true // may be final already: no notice will come
			}
		}
	case e.known[key]:
		dirty[key] = true
	}
	return false
}

func (e *Emitter) refresh(ctx context.Context) error {
	keys, err := e.store.PendingWebhookKeys(ctx)
	if err != nil {
		e.cfg.Logger.Warn("webhook emitter: reading callbacks failed", slog.Any("error", err))
		return err
	}
	e.known = make(map[string]bool, len(keys))
	for _, k := range keys {
		e.known[k] = true
	}
	return nil
}

// round does one pass: callbacks whose batch or job is final get their
// last events; outboxes of job events that are due are sent; new events
// and those whose task may be lost are handed to asynq.
func (e *Emitter) round(ctx context.Context, full bool, dirty map[string]bool) {
	if full {
		_ = e.refresh(ctx)
	}
	var ids []string
	if full || len(dirty) > 0 {
		var batches, jobs []int64
		for k := range dirty {
			if b, j, ok := store.WebhookKeys(k); ok && b != 0 {
				batches = append(batches, b)
			} else if ok {
				jobs = append(jobs, j)
			}
		}
		ids = append(ids, e.finishWebhooks(ctx, full, batches, jobs)...)
	}
	ids = append(ids, e.sendJobEvents(ctx)...)
	e.enqueue(ctx, ids, full)
}

// finishWebhooks makes the final events of callbacks whose batch or job is
// final, after their remaining job events.
func (e *Emitter) finishWebhooks(ctx context.Context, all bool, batches, jobs []int64) []string {
	hooks, err := e.store.FinalWebhooks(ctx, all, batches, jobs, 1000)
	if err != nil {
		e.cfg.Logger.Warn("webhook emitter: finding finished batches failed", slog.Any("error", err))
		return nil
	}
	var ids []string
	for _, h := range hooks {
		final := func() (store.NewEvent, error) {
			if h.BatchID != nil {
				b, err := e.store.GetBatch(ctx, *h.BatchID)
				if err != nil {
					return store.NewEvent{}, err
				}
				return batchEvent(b, e.cfg.Now())
			}
			j, err := e.store.GetJob(ctx, *h.JobID)
			if err != nil {
				return store.NewEvent{}, err
			}
			return jobEvent(j, e.cfg.Now())
		}
		made, err := e.store.FinishWebhook(ctx, h.ID, e.cfg.JobsPerEvent, e.jobsEvent, final)
		if err != nil {
			e.cfg.Logger.Warn("webhook emitter: final event failed", slog.Int64("webhook_id", h.ID), slog.Any("error", err))
			continue
		}
		ids = append(ids, made...)
	}
	return ids
}

func (e *Emitter) jobsEvent(jobs []store.FinishedJob) (store.NewEvent, error) {
	return jobsFinishedEvent(jobs, e.cfg.Now())
}

// sendJobEvents makes batch.jobs_finished events of the outboxes that are
// due.
func (e *Emitter) sendJobEvents(ctx context.Context) []string {
	hooks, err := e.store.ReadyJobOutboxes(ctx, e.cfg.JobEventsMin, e.cfg.JobEventsWait, 1000)
	if err != nil {
		e.cfg.Logger.Warn("webhook emitter: reading job outboxes failed", slog.Any("error", err))
		return nil
	}
	var ids []string
	for _, h := range hooks {
		id, err := e.store.TakeJobOutbox(ctx, h, e.cfg.JobsPerEvent, e.jobsEvent)
		if err != nil {
			e.cfg.Logger.Warn("webhook emitter: job event failed", slog.Int64("webhook_id", h), slog.Any("error", err))
			continue
		}
		if id != "" {
			ids = append(ids, id)
		}
	}
	return ids
}

// enqueue hands the new events (ids) to asynq; with sweep, also the
// pending events that were never handed over or are long overdue (a lost
// task). New events have never been handed over, so claiming pending
// events takes them too, and stamps them so that the next sweep leaves
// them alone.
func (e *Emitter) enqueue(ctx context.Context, ids []string, sweep bool) {
	if len(ids) == 0 && !sweep {
		return
	}
	const page = 1000
	for {
		tasks, err := e.store.ClaimPendingEvents(ctx, e.cfg.Stale, page)
		if err != nil {
			e.cfg.Logger.Warn("webhook emitter: claiming events failed", slog.Any("error", err))
			return
		}
		for _, t := range tasks {
			if err := Enqueue(ctx, e.queue, e.cfg, t); err != nil {
				// The event keeps its stamp and is handed over again once stale.
				e.cfg.Logger.Warn("webhook emitter: enqueue failed", slog.String("event_id", t.ID), slog.Any("error", err))
			}
		}
		if len(tasks) < page {
			return
		}
	}
}
