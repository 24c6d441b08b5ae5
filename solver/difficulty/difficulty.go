// Package difficulty measures how hard a level is, not only whether it can
// be won: win rates of a random and of a greedy player over seeded
// playouts, where on a ladder of beam players of growing width players
// start to win ([Ladder]), the share of moves that keep a win at the first
// decisions (from an exact search), the shortest and median winning plan
// lengths, search effort, and one 1–10 score (docs/difficulty.md).
//
// The package does no I/O. A kind plugs in by implementing [Game] (and
// [BeamGame] for the ladder) for its levels and [Rater] on its
// solver.Kind; [Measure] does the rest. Nothing
// here changes a verdict: the figures are computed after the solve and
// stored next to its result.
package difficulty

import (
	"context"
	"errors"

	"github.com/puzzled/puzzled/solver"
)

// DefaultPlayouts is the number of playouts per player when the job does
// not say otherwise.
const DefaultPlayouts = 1000

// MaxPlayouts caps the job option: past it the confidence interval is
// already narrower than anything a designer acts on.
const MaxPlayouts = 100_000

// DefaultExactNodes bounds the exact search of [Measure]; past it the
// exact figures are left out ("where affordable").
const DefaultExactNodes = 50_000

// Options are the per-level settings of a measurement.
type Options struct {
	Playouts   int    // per player; 0 means DefaultPlayouts
	Seed       uint64 // playout i of player p uses a generator seeded (Seed, p, i)
	Workers    int    // goroutines for playouts; 0 means 1
	ExactNodes int64  // node budget of the exact search; 0 means DefaultExactNodes
	Plies      int    // K, the decisions along the first winning line to report; 0 means 5

	// The ladder (ladder.go), for games that are [BeamGame]s.
	Widths      []int // beam widths of rungs 2..K; nil means DefaultWidths
	Noise       int64 // beam players' misjudgement: Eval noise in [0, Noise); set by the kind
	RungGames   int   // games per beam rung; 0 means DefaultRungGames
	LadderNodes int64 // positions the beam rungs may rate in all; 0 means DefaultLadderNodes
	FullLadder  bool  // play every rung, not only up to the first that wins half its games
}

func (o Options) withDefaults() Options {
	if o.Playouts <= 0 {
		o.Playouts = DefaultPlayouts
	}
	if o.Workers <= 0 {
		o.Workers = 1
	}
	if o.ExactNodes <= 0 {
		o.ExactNodes = DefaultExactNodes
	}
	if o.Plies <= 0 {
		o.Plies = 5
	}
	if o.Widths == nil {
		o.Widths = DefaultWidths
	}
	if o.RungGames <= 0 {
		o.RungGames = DefaultRungGames
	}
	if o.LadderNodes <= 0 {
		o.LadderNodes = DefaultLadderNodes
	}
	return o
}

// Rater is implemented by the kinds that report difficulty figures. Rate
// runs after a definitive solve: res is that solve's result and is not
// changed. It honours ctx; when ctx ends first it returns ctx's error
// wrapped and the caller stores no figures.
type Rater interface {
	Rate(ctx context.Context, lvl solver.Level, res solver.Result, opts Options) (Figures, error)
}

// ErrNotRated is returned by a Rater for a level it has no figures for
// (e.g. zuma's unlimited mode).
var ErrNotRated = errors.New("difficulty: no figures for this level")

// Figures are the difficulty of one level. Pointers and empty slices are
// figures that did not apply or were not affordable.
type Figures struct {
	Playouts int     `json:"playouts"`
	Seed     uint64  `json:"seed"`
	Random   *Rate   `json:"random,omitempty"`
	Greedy   *Rate   `json:"greedy,omitempty"`
	Target   string  `json:"target,omitempty"` // what a playout must reach to count as a win
	First    *Share  `json:"first_moves,omitempty"`
	Plies    []Share `json:"plies,omitempty"` // decisions 1..K along the first winning line

	Shortest *int     `json:"shortest,omitempty"` // moves of the shortest win
	Median   *float64 `json:"median,omitempty"`   // median moves over all distinct winning lines

	NodesFirstSolution *int64 `json:"nodes_first_solution,omitempty"` // plain DFS, this package's order
	NodesProof         int64  `json:"nodes_proof"`                    // the kind's solver, to its verdict
	ExactComplete      bool   `json:"exact_complete"`                 // the exact search saw the whole tree

	Margin *int64 `json:"margin,omitempty"` // twoends: first minus second under optimal play

	// Ladder is where on a ladder of players of growing skill players
	// start to win (ladder.go); absent for games without beam players.
	Ladder *Ladder `json:"ladder,omitempty"`

	Score *int `json:"score,omitempty"` // 1 (trivial) .. 10 (brutal); absent when unsolvable
}

// Rate is the win rate of one player with its 95% Wilson interval.
type Rate struct {
	Wins  int     `json:"wins"`
	Games int     `json:"games"`
	Rate  float64 `json:"rate"`
	Low   float64 `json:"low"`
	High  float64 `json:"high"`
}

// Share is how many of the legal moves at one decision keep a win (or, in
// twoends, keep the optimum).
type Share struct {
	Winning int     `json:"winning"`
	Moves   int     `json:"moves"`
	Share   float64 `json:"share"`
}

func newShare(winning, moves int) Share {
	s := Share{Winning: winning, Moves: moves}
	if moves > 0 {
		s.Share = float64(winning) / float64(moves)
	}
	return s
}
