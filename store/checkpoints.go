package store

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/puzzled/puzzled/jobtype"
)

// Checkpoint is one checkpoint of a running search: its sequence number in
// the job, the node count and best line so far its envelope records
// (solver.CheckpointNodes, solver.CheckpointBest), and the blob itself.
type Checkpoint struct {
	Seq   int32
	Nodes int64
	Best  json.RawMessage // JSON of a solver.Best; nil if the search has none yet
	Blob  []byte
}

// SaveCheckpoint overwrites the job's checkpoint with a newer one. It
// writes nothing when the job is no longer running or the sequence number
// is not newer than the stored one (a stale attempt must not overwrite a
// newer state), and reports whether it wrote.
func (s *Store) SaveCheckpoint(ctx context.Context, jobID int64, c Checkpoint) (bool, error) {
	tag, err := s.pool.Exec(ctx, `
		INSERT INTO checkpoints (job_id, seq, nodes, best, blob)
		SELECT $1, $2, $3, $4::jsonb, $5 WHERE EXISTS (SELECT 1 FROM jobs WHERE id = $1 AND `+stateIs(jobtype.Running)+`)
		ON CONFLICT (job_id) DO UPDATE SET seq = excluded.seq, nodes = excluded.nodes,
			best = excluded.best, blob = excluded.blob, updated_at = now()
		WHERE checkpoints.seq < excluded.seq`, jobID, c.Seq, c.Nodes, textOrNil(c.Best), c.Blob)
	if err != nil {
		return false, fmt.Errorf("store: save checkpoint of job %d: %w", jobID, err)
	}
	return tag.RowsAffected() == 1, nil
}
