package store

import (
	"context"
	"fmt"
)

// Difficulty sums up the difficulty scores of a batch's rated levels.
type Difficulty struct {
	// Rated is the number of levels with a score.
	Rated int
	// Histogram[s-1] is the number of levels with score s (1..10).
	Histogram [10]int
	// Hardest lists up to 10 levels of the highest score, the one the
	// random player wins least first.
	Hardest []ReportLevel
}

// hardestLimit is the length of Difficulty.Hardest.
const hardestLimit = 10

// batchDifficulty reads the score histogram and the hardest levels of a
// batch from results.difficulty.
func (s *Store) batchDifficulty(ctx context.Context, id int64) (Difficulty, error) {
	var d Difficulty
	rows, err := s.pool.Query(ctx, `
		SELECT (r.difficulty->>'score')::int, count(*)
		FROM jobs j JOIN results r ON r.job_id = j.id
		WHERE j.batch_id = $1 AND r.difficulty ? 'score'
		GROUP BY 1`, id)
	if err != nil {
		return d, fmt.Errorf("store: difficulty histogram: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var score, n int
		if err := rows.Scan(&score, &n); err != nil {
			return d, fmt.Errorf("store: difficulty histogram: %w", err)
		}
		if score >= 1 && score <= 10 {
			d.Histogram[score-1] += n
			d.Rated += n
		}
	}
	if err := rows.Err(); err != nil {
		return d, fmt.Errorf("store: difficulty histogram: %w", err)
	}
	d.Hardest, err = s.reportLevels(ctx, "j.batch_id = $1 AND r.difficulty ? 'score'",
		"(r.difficulty->>'score')::int DESC, (r.difficulty->'random'->>'rate')::float8, j.seq", hardestLimit, id)
	return d, err
}
