package store

import (
	"context"
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

// batchDifficulty reads the score histogram of a batch from its rollup r
// and its hardest levels from batch_tops.
func (s *Store) batchDifficulty(ctx context.Context, id int64, r rollup) (Difficulty, error) {
	var d Difficulty
	for _, metrics := range r.hists {
		for score, n := range metrics["score"] {
			if score >= 1 && score <= 10 {
				d.Histogram[score-1] += int(n)
				d.Rated += int(n)
			}
		}
	}
	var err error
	d.Hardest, err = s.reportLevels(ctx, topsOf("hardest", hardestLimit), "true", "t.k1 DESC, t.k2, t.seq", hardestLimit, id)
	return d, err
}
