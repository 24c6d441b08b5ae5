package twoends

import (
	"context"
	"fmt"

	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/difficulty"
)

// Rate implements difficulty.Rater. Twoends is a two-player game with no
// losing position, so there are no playouts and no score: the figures are
// the margin (first minus second under optimal play) and, for the first K
// plies along the optimal line (ties → L), how many of the two ends keep
// the optimum for the player to move. Each ply costs two O(n) game values.
func (kind) Rate(ctx context.Context, lvl solver.Level, res solver.Result, opts difficulty.Options) (difficulty.Figures, error) {
	l, ok := lvl.(*Level)
	if !ok {
		return difficulty.Figures{}, fmt.Errorf("twoends: level of kind %q", lvl.Kind())
	}
	k := opts.Plies
	if k <= 0 {
		k = 5
	}
	a := l.Values()
	f := difficulty.Figures{Seed: opts.Seed, NodesProof: res.Stats.Nodes, Target: "keep the optimum"}
	var buf []int64
	lo, hi := 0, len(a) // the values left are a[lo:hi]
	var margin int64
	for ply := 0; ply < k && hi > lo; ply++ {
		if err := ctx.Err(); err != nil {
			return difficulty.Figures{}, fmt.Errorf("twoends: rate: %w", err)
		}
		var restL, restR int64
		restL, buf = gameValue(a[lo+1:hi], buf)
		restR, buf = gameValue(a[lo:hi-1], buf)
		left, right := a[lo]-restL, a[hi-1]-restR
		best := max(left, right)
		if ply == 0 {
			margin = best
		}
		share := difficulty.Share{Moves: 2}
		if hi-lo == 1 {
			share.Moves = 1 // both ends are the same value
		}
		if left == best {
			share.Winning++
		}
		if right == best && share.Moves == 2 {
			share.Winning++
		}
		share.Share = float64(share.Winning) / float64(share.Moves)
		f.Plies = append(f.Plies, share)
		if left == best {
			lo++
		} else {
			hi--
		}
	}
	if len(f.Plies) > 0 {
		f.First = &f.Plies[0]
		f.Margin = &margin
		f.ExactComplete = true
	}
	return f, nil
}
