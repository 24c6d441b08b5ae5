package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/hibiken/asynq"

	"github.com/puzzled/puzzled/queue"
	"github.com/puzzled/puzzled/store"
)

// SlowAfter is how long a job of a bundle may run before the worker treats
// it as slow: it is marked running and the rest of its bundle goes solo.
// queue.BundleJobSlack, the task timeout each job of a bundle adds, must
// cover it.
const SlowAfter = 200 * time.Millisecond

// bundleFlushEvery bounds how long a finished job of a bundle waits for its
// result to be stored with the next ones.
const bundleFlushEvery = time.Second

// handleBundle runs the jobs of a bundle (queue.BundleSize jobs of one
// batch) one after another. The jobs are claimed for this worker without
// another write; a job that finishes within SlowAfter goes from queued to
// done in one statement with the others. A slow job is marked running (its
// attempt counts from then on) and the rest of the bundle goes solo, so
// that other workers take it while this one searches; so does the rest of
// a bundle that has run for SlowAfter in all. Anything unusual (a retried
// bundle, an error, shutdown) sends the jobs left solo too, where
// attempts, errors and checkpoints are handled one job at a time by
// handleJob.
func (w *Worker) handleBundle(ctx context.Context, p queue.Payload) error {
	b := &bundleRun{w: w, log: w.cfg.Logger.With(slog.Int64("batch_id", p.BatchID), slog.Int("bundle", int(p.Bundle)))}
	from, _ := p.Seqs()
	b.key = store.BundleKey{BatchID: p.BatchID, FirstSeq: from}
	if !w.holdBundle(b.key) {
		b.log.Info("task dropped: this worker works through the bundle already")
		return nil
	}
	defer b.end(ctx)
	if err := b.claim(ctx, p); err != nil || len(b.jobs) == 0 {
		return err
	}
	defer b.releaseHeld()
	b.start = time.Now()
	for b.next < len(b.jobs) {
		if b.shuttingDown() {
			b.log.Info("bundle handed back at shutdown", slog.Int("jobs_left", len(b.jobs)-b.next))
			return b.handBack(ctx, b.next, fmt.Errorf("%w: %w", errHandedBack, asynq.RevokeTask))
		}
		if b.next > 0 && time.Since(b.start) > b.w.cfg.SlowAfter && b.restSolo(ctx, b.next) {
			// Not one slow job but many middling ones: running them one
			// after another would keep the other slots idle.
			break
		}
		i := b.next
		b.next++
		more, err := b.runJob(ctx, b.jobs[i])
		if err != nil {
			return b.handBack(ctx, i, err)
		}
		if !more {
			break
		}
		if err := b.flushIfDue(ctx); err != nil {
			return b.handBack(ctx, b.next, err)
		}
	}
	return b.flush(ctx)
}

// bundleRun is one bundle task's progress through its jobs.
type bundleRun struct {
	w     *Worker
	log   *slog.Logger
	key   store.BundleKey
	jobs  []store.RunnableJob
	next  int       // index of the next job to run
	start time.Time // when the first job started
	done  []attempt // results not stored yet
	since time.Time // when the oldest of done finished
	// gone: jobs sent solo, no longer held by the bundle (this worker may
	// be running one of them in its own task already).
	gone map[int64]bool
	// toChildren: a job ran past InProcessSlice, so the rest of the
	// bundle's searches go to solve processes at once.
	toChildren bool
}

// end lets go of the bundle in PostgreSQL (store.EndBundle: gone when no
// live job is left in it) and here. A failed write leaves the bundle held
// by this worker until its next beat releases it as a stray.
func (b *bundleRun) end(ctx context.Context) {
	if err := b.w.cfg.Store.EndBundle(context.WithoutCancel(ctx), b.key.BatchID, b.key.FirstSeq, b.w.owner); err != nil {
		b.log.Warn("bundle not ended", slog.Any("error", err))
	}
	b.w.mu.Lock()
	delete(b.w.bundles, b.key)
	b.w.mu.Unlock()
}

// releaseHeld lets go of the jobs the bundle still holds, at its end.
func (b *bundleRun) releaseHeld() {
	var ids []int64
	for _, j := range b.jobs {
		if !b.gone[j.ID] {
			ids = append(ids, j.ID)
		}
	}
	b.w.releaseAll(ids)
}

// sendSolo takes jobs out of the bundle (see store.MakeSolo) and lets go
// of them, so that their own tasks may run them on this worker too.
func (b *bundleRun) sendSolo(ctx context.Context, ids []int64) error {
	if err := fenceLogged(b.log, b.w.cfg.Store.MakeSolo(ctx, b.w.owner.ID, ids)); err != nil {
		return err
	}
	b.letGo(ids)
	return nil
}

func (b *bundleRun) letGo(ids []int64) {
	if b.gone == nil {
		b.gone = map[int64]bool{}
	}
	for _, id := range ids {
		b.gone[id] = true
	}
	b.w.releaseAll(ids)
}

// claim loads the bundle's jobs that no other live worker holds, and holds
// them; a job this process runs already in another task is left to it. A
// retried bundle sends its jobs solo instead: an earlier delivery failed or
// its worker died mid-bundle, and which job was to blame is unknown.
func (b *bundleRun) claim(ctx context.Context, p queue.Payload) error {
	from, to := p.Seqs()
	b.w.claims.RLock()
	jobs, err := b.w.cfg.Store.ClaimBundle(ctx, p.BatchID, from, to, b.w.owner)
	jobs = b.w.holdJobs(jobs)
	b.w.claims.RUnlock()
	if err != nil {
		return err
	}
	if n, _ := asynq.GetRetryCount(ctx); n > 0 && len(jobs) > 0 {
		b.log.Warn("retried bundle split into solo jobs; they resume first", slog.Int("jobs", len(jobs)))
		defer b.w.releaseAll(jobIDs(jobs))
		return fenceLogged(b.log, b.w.cfg.Store.ResumeSolo(ctx, b.w.owner.ID, jobIDs(jobs)))
	}
	b.jobs = jobs
	return nil
}

func (b *bundleRun) shuttingDown() bool {
	select {
	case <-b.w.stopping:
		return true
	default:
		return false
	}
}

// runJob runs one job and settles it. more is false when the rest of the
// bundle went solo while the job ran (it turned slow); an error ends the
// bundle's task.
func (b *bundleRun) runJob(ctx context.Context, job store.RunnableJob) (more bool, err error) {
	log := b.log.With(slog.Int64("job_id", job.ID), slog.String("kind", job.Kind))
	if job.Attempts > job.MaxAttempts {
		// handleJob fails it with its last error.
		return true, b.sendSolo(ctx, []int64{job.ID})
	}
	// The jobs after it, listed only if it turns slow (b.next does not
	// move while it runs): a list per job cost a bundle of 64 jobs 16 KB.
	a := b.w.run(ctx, log, job, func() bool { return b.turnSlow(ctx, log, job, jobIDs(b.jobs[b.next:])) }, !b.toChildren)
	b.toChildren = b.toChildren || a.moved
	act, err := b.w.settle(ctx, log, a, true)
	switch {
	case err != nil:
		return false, err
	case act == actRetry:
		b.letGo([]int64{job.ID}) // settle sent it solo
	case act == actHandBack:
		return false, fmt.Errorf("%w: %w", a.err, asynq.RevokeTask)
	case act == actTaskEnded:
		return false, a.err
	case act == actTakenOver:
		return false, nil // judged dead: the bundle's other jobs were taken over too
	case act == actStore:
		if len(b.done) == 0 {
			b.since = time.Now()
		}
		b.done = append(b.done, a)
	}
	return !a.slow, nil
}

// flushIfDue stores the results waiting longer than bundleFlushEvery.
func (b *bundleRun) flushIfDue(ctx context.Context) error {
	if len(b.done) == 0 || time.Since(b.since) <= bundleFlushEvery {
		return nil
	}
	return b.flush(ctx)
}

func (b *bundleRun) flush(ctx context.Context) error {
	err := b.w.store(ctx, b.log, b.done)
	if err == nil {
		b.done = b.done[:0]
	}
	return err
}

// restSolo sends the jobs from index from on solo; false if that failed
// (the bundle then goes on with them).
func (b *bundleRun) restSolo(ctx context.Context, from int) bool {
	if err := b.sendSolo(ctx, jobIDs(b.jobs[from:])); err != nil {
		b.log.Warn("rest of a slow bundle not sent solo", slog.Any("error", err))
		return false
	}
	b.log.Debug("slow bundle: rest sent solo", slog.Int("jobs", len(b.jobs)-from))
	return true
}

// handBack ends the bundle's task with cause: it stores what is done and
// sends the jobs from index from on solo.
func (b *bundleRun) handBack(ctx context.Context, from int, cause error) error {
	err := errors.Join(b.flush(ctx), b.sendSolo(context.WithoutCancel(ctx), jobIDs(b.jobs[from:])))
	if err != nil {
		return errors.Join(cause, err)
	}
	return cause
}

// turnSlow marks a bundle's job running once its search has lasted
// SlowAfter and sends the jobs after it solo. It reports whether they
// went (if not, the bundle goes on with them after this job). The job's
// watcher calls it while the handler waits in the solver.
func (b *bundleRun) turnSlow(ctx context.Context, log *slog.Logger, job store.RunnableJob, rest []int64) bool {
	if err := fenceLogged(log, b.w.cfg.Store.MarkRunning(ctx, b.w.runOf(job), job.ID)); err != nil {
		log.Warn("slow job not marked running", slog.Any("error", err))
	}
	// The results of the jobs before it are stored now, not after its
	// search: that may take minutes, and a crash meanwhile would lose
	// them (issue 30 item 5). A failed write keeps them for the next.
	_ = b.flush(ctx)
	if len(rest) == 0 {
		return false
	}
	if err := b.sendSolo(ctx, rest); err != nil {
		log.Warn("rest of a slow bundle not sent solo", slog.Any("error", err))
		return false
	}
	log.Debug("slow job: rest of the bundle sent solo", slog.Int("jobs", len(rest)))
	return true
}

func jobIDs(jobs []store.RunnableJob) []int64 {
	ids := make([]int64, len(jobs))
	for i, j := range jobs {
		ids[i] = j.ID
	}
	return ids
}
