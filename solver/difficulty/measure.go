package difficulty

import (
	"context"
	"errors"

	"github.com/puzzled/puzzled/solver"
)

// Measure computes the figures of one level from fresh games and the
// result of its definitive solve (res is only read: its node count is the
// effort to the proof). The exact figures are left out when they need
// more than opts.ExactNodes; the playouts always run to the end unless
// ctx ends, and then Measure returns ctx's error wrapped. A solvable
// level of a [BeamGame] gets the ladder too (climb), which stops early,
// incomplete, rather than fail when ctx's deadline passes during it.
func Measure(ctx context.Context, newGame NewGame, res solver.Result, opts Options) (Figures, error) {
	opts = opts.withDefaults()
	f := Figures{Playouts: opts.Playouts, Seed: opts.Seed, NodesProof: res.Stats.Nodes}
	var err error
	if f.Random, err = Playouts(ctx, newGame, RandomPlayer, opts.Playouts, opts.Seed, opts.Workers); err != nil {
		return Figures{}, err
	}
	if f.Greedy, err = Playouts(ctx, newGame, GreedyPlayer, opts.Playouts, opts.Seed, opts.Workers); err != nil {
		return Figures{}, err
	}
	if err := measureExact(ctx, newGame(), opts, &f); err != nil {
		return Figures{}, err
	}
	if _, ok := newGame().(BeamGame); ok && res.Verdict == solver.Solved {
		if f.Ladder, err = climb(ctx, newGame, f.Random, f.Greedy, opts); err != nil {
			return Figures{}, err
		}
	}
	if res.Verdict == solver.Solved {
		f.Score = Score(f)
	}
	return f, nil
}

// measureExact fills the exact figures that fit in the node budget. Only a
// ctx error is returned; running out of nodes just leaves figures out.
func measureExact(ctx context.Context, g Game, opts Options, f *Figures) error {
	e := newExact(ctx, g, opts.ExactNodes)
	plies, err := e.shares(opts.Plies)
	if err != nil {
		return ignoreBudget(err)
	}
	if len(plies) > 0 {
		f.First = &plies[0]
		f.Plies = plies
	}
	if e.firstWin > 0 {
		n := e.firstWin
		f.NodesFirstSolution = &n
	}
	// Counting every winning line is the costly part (their number grows
	// exponentially with the level); it gets at most a quarter of the
	// budget, so a level where it cannot finish wastes little.
	e.maxNodes = min(opts.ExactNodes, e.nodes+opts.ExactNodes/4)
	h, err := e.lines()
	if err != nil {
		return ignoreBudget(err)
	}
	f.ExactComplete = true
	if len(h) > 0 {
		s, m := shortestAndMedian(h)
		f.Shortest, f.Median = &s, &m
	}
	return nil
}

func ignoreBudget(err error) error {
	if errors.Is(err, errNodes) {
		return nil
	}
	return err
}
