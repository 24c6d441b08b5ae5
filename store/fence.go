package store

import (
	"context"
	"errors"
	"fmt"
)

// Fencing. A job has one owner at a time, but an owner can be wrong about
// still being it: a worker whose beats did not reach PostgreSQL for
// DeadAfter (a partition, a stall) is judged dead and its jobs run
// elsewhere, while its own run of them may go on and finish. Every write
// of a run therefore names the run (Run) and is refused unless the run
// still holds the job: its result, its checkpoints, a failure, a hand-back,
// a job marked running or sent solo. A refused write is ErrFenced (or, for
// FinishJobs, the job in its fenced list), and the worker logs it; it
// never counts as done.
//
// What "holds" means follows who owns the job (runHolds):
//   - a job started on its own (StartJobs) is held by its worker_id and
//     its attempt number, the run's epoch: a takeover or a later start
//     sets another worker or counts another attempt;
//   - a job still in its bundle (no worker_id, not solo) is held by the
//     worker that owns the bundle row (ClaimBundle); a takeover sends the
//     bundle's jobs solo or gives the bundle to another worker;
//   - a job sent solo and not started (worker_id NULL) is held by no run.

// Run names one run of a job: the worker process that runs it and the
// attempt it counts (RunnableJob.Attempts).
type Run struct {
	Worker  string
	Attempt int32
}

// RunOf is the run of job by worker.
func RunOf(worker string, job RunnableJob) Run {
	return Run{Worker: worker, Attempt: job.Attempts}
}

// ErrFenced is the error of a write refused because the run that makes it
// no longer holds the job: another worker took it over, or a newer run of
// it started.
var ErrFenced = errors.New("store: a newer run holds the job (this run was fenced)")

// runHolds is the condition that the run of worker w and attempt a (SQL
// expressions) holds job row jobs.
func runHolds(w, a string) string {
	return `(CASE
		WHEN jobs.worker_id IS NOT NULL THEN jobs.worker_id = ` + w + ` AND jobs.attempts = ` + a + `
		WHEN jobs.solo OR jobs.batch_id IS NULL THEN false
		ELSE ` + ownsJobsBundle(w) + `
		END)`
}

// bundleHolds is the condition that worker w owns the bundle that job row
// jobs is still in (what MakeSolo needs: only the bundle's worker sends
// its jobs away).
func bundleHolds(w string) string {
	return `(NOT jobs.solo AND jobs.batch_id IS NOT NULL AND ` + ownsJobsBundle(w) + `)`
}

// ownsJobsBundle is the condition that worker w owns the bundle row whose
// seq range holds job row jobs, found by one descent of the bundles key:
// the last bundle of the batch that starts at or before the job's seq.
func ownsJobsBundle(w string) string {
	return `coalesce((
			SELECT b.worker_id = ` + w + ` AND jobs.seq < b.end_seq FROM bundles b
			WHERE b.batch_id = jobs.batch_id AND b.first_seq <= jobs.seq
			ORDER BY b.first_seq DESC LIMIT 1), false)`
}

// fencedWrite runs q, a statement that writes to job $1 only when its run
// holds it and returns one boolean: whether the job is live and the run
// does not hold it (fencedCheck builds that). A true is ErrFenced.
func (s *Store) fencedWrite(ctx context.Context, what string, id int64, q string, args ...any) error {
	var fenced bool
	if err := s.pool.QueryRow(ctx, q, append([]any{id}, args...)...).Scan(&fenced); err != nil {
		return fmt.Errorf("store: %s of job %d: %w", what, id, err)
	}
	if fenced {
		return fmt.Errorf("%s of job %d: %w", what, id, ErrFenced)
	}
	return nil
}

// fencedCheck is the final SELECT of a fencedWrite statement: whether job
// $1 is live and the run of worker w and attempt a does not hold it. It
// reads the statement's snapshot, from before its own write.
func fencedCheck(w, a string) string {
	return `SELECT coalesce((SELECT ` + stillLive + ` AND NOT ` + runHolds(w, a) + ` FROM jobs WHERE id = $1), false)`
}
