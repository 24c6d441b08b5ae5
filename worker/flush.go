package worker

import (
	"context"

	"github.com/puzzled/puzzled/store"
)

// The store writes that concurrent handlers share (writemerger.go): job
// starts and result finishes, each one statement for many jobs.

// flushStarts starts a batch of jobs for this worker (store.StartJobs).
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
