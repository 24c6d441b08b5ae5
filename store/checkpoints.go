package store

import (
	"context"
	"fmt"

	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/solver"
)

// SaveCheckpoint overwrites the job's checkpoint with a newer one: blob,
// the solver's envelope, under sequence number seq, with the node count
// and best line so far read out of it (solver.CheckpointNodes,
// CheckpointBest) so that progress reports never read the blob. It writes
// nothing when the job is no longer running or seq is not newer than the
// stored one (a stale attempt must not overwrite a newer state), and
// reports whether it wrote. ErrFenced: the job is live but run no longer
// holds it (see Run).
func (s *Store) SaveCheckpoint(ctx context.Context, run Run, jobID int64, seq int32, blob []byte) (bool, error) {
	var saved, fenced bool
	err := s.pool.QueryRow(ctx, `
		WITH c AS (
			INSERT INTO checkpoints (job_id, seq, nodes, best, blob)
			SELECT $1, $2, $3, $4::jsonb, $5 WHERE EXISTS (
				SELECT 1 FROM jobs WHERE id = $1 AND `+stateIs(jobtype.Running)+` AND `+runHolds("$6", "$7")+`)
			ON CONFLICT (job_id) DO UPDATE SET seq = excluded.seq, nodes = excluded.nodes,
				best = excluded.best, blob = excluded.blob, updated_at = now()
			WHERE checkpoints.seq < excluded.seq
			RETURNING 1
		)
		SELECT EXISTS (SELECT 1 FROM c), (`+fencedCheck("$6", "$7")+`)`,
		jobID, seq, solver.CheckpointNodes(blob), textOrNil(solver.CheckpointBest(blob)), blob, run.Worker, run.Attempt).Scan(&saved, &fenced)
	if err != nil {
		return false, fmt.Errorf("store: save checkpoint of job %d: %w", jobID, err)
	}
	if fenced {
		return false, fmt.Errorf("checkpoint of job %d: %w", jobID, ErrFenced)
	}
	return saved, nil
}

// DropFinalCheckpoints drops the blobs of up to limit checkpoints whose
// job is final (done, failed, canceled) and reports how many it dropped.
// A blob only serves to resume its job; the row's summary (nodes, best
// line) stays for the job's page. Rows another transaction holds are
// skipped (SKIP LOCKED), so dispatchers running it at once never wait on
// each other or on a checkpoint being saved.
func (s *Store) DropFinalCheckpoints(ctx context.Context, limit int) (int, error) {
	tag, err := s.pool.Exec(ctx, `
		WITH c AS (
			SELECT c.job_id FROM checkpoints c JOIN jobs j ON j.id = c.job_id
			WHERE c.blob IS NOT NULL AND NOT `+stillLive+`
			LIMIT $1
			FOR UPDATE OF c SKIP LOCKED
		)
		UPDATE checkpoints SET blob = NULL FROM c WHERE checkpoints.job_id = c.job_id`, limit)
	if err != nil {
		return 0, fmt.Errorf("store: drop final checkpoints: %w", err)
	}
	return int(tag.RowsAffected()), nil
}
