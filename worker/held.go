package worker

import (
	"context"
	"log/slog"

	"github.com/puzzled/puzzled/store"
)

// What this process holds: the jobs it runs and those of the bundles it
// works through (Worker.held), so that a second task of a job delivered
// here does not run it twice, and so that the jobs PostgreSQL says this
// worker holds but it does not are let go (releaseStrays).

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
	keep := store.Held{Jobs: make([]int64, 0, len(w.held))}
	for id := range w.held {
		keep.Jobs = append(keep.Jobs, id)
	}
	for b := range w.bundles {
		keep.Bundles = append(keep.Bundles, b)
	}
	w.mu.Unlock()
	// Bounded: the beat loop waits for it, and claims stay locked.
	ctx, cancel := context.WithTimeout(ctx, w.owner.DeadAfter)
	defer cancel()
	ids, bundles, err := w.cfg.Store.ReleaseStrays(ctx, w.owner.ID, keep)
	if err != nil {
		log.Warn("stray jobs not released", slog.Any("error", err))
	} else if len(ids) > 0 || bundles > 0 {
		log.Warn("jobs held in PostgreSQL but not running here released", slog.Any("job_ids", ids),
			slog.Int("bundles", bundles))
	}
}

// holdBundle marks a bundle as worked through by this process; false if
// it already is (a second delivery of its task must not claim it again).
func (w *Worker) holdBundle(k store.BundleKey) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.bundles[k] {
		return false
	}
	w.bundles[k] = true
	return true
}

// holdJobs holds the jobs it can and returns them.
func (w *Worker) holdJobs(jobs []store.RunnableJob) []store.RunnableJob {
	kept := jobs[:0]
	for _, j := range jobs {
		if w.hold(j.ID) {
			kept = append(kept, j)
		}
	}
	return kept
}
