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
// reports whether it wrote.
func (s *Store) SaveCheckpoint(ctx context.Context, jobID int64, seq int32, blob []byte) (bool, error) {
	tag, err := s.pool.Exec(ctx, `
		INSERT INTO checkpoints (job_id, seq, nodes, best, blob)
		SELECT $1, $2, $3, $4::jsonb, $5 WHERE EXISTS (SELECT 1 FROM jobs WHERE id = $1 AND `+stateIs(jobtype.Running)+`)
		ON CONFLICT (job_id) DO UPDATE SET seq = excluded.seq, nodes = excluded.nodes,
			best = excluded.best, blob = excluded.blob, updated_at = now()
		WHERE checkpoints.seq < excluded.seq`, jobID, seq, solver.CheckpointNodes(blob), textOrNil(solver.CheckpointBest(blob)), blob)
	if err != nil {
		return false, fmt.Errorf("store: save checkpoint of job %d: %w", jobID, err)
	}
	return tag.RowsAffected() == 1, nil
}
