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

// finishReply is what became of one result: stored, or refused because
// its run no longer holds the job (fenced), or neither (the job was no
// longer live: canceled, or finished by another task).
type finishReply struct{ stored, fenced bool }

// flushFinishes stores a batch of results. A job id can appear twice (two
// deliveries of one task finishing together): only the first is written,
// as FinishJobs would do for a second call.
func (w *Worker) flushFinishes(ctx context.Context, fs []store.Finish) ([]finishReply, error) {
	seen := make(map[int64]bool, len(fs))
	unique := fs[:0:0]
	for _, f := range fs {
		if !seen[f.JobID] {
			seen[f.JobID] = true
			unique = append(unique, f)
		}
	}
	stored, fenced, err := w.cfg.Store.FinishJobs(ctx, unique)
	if err != nil {
		return nil, err
	}
	refused := make(map[int64]bool, len(fenced))
	for _, id := range fenced {
		refused[id] = true
	}
	out := make([]finishReply, len(fs))
	for i, f := range fs {
		out[i] = finishReply{stored: stored[f.JobID], fenced: refused[f.JobID]}
		stored[f.JobID], refused[f.JobID] = false, false // a later duplicate in this batch is neither
	}
	return out, nil
}
