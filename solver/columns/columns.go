// Package columns is the falling-jewel kind ("columns", docs/formats.md):
// parsing and validation, a compact board simulator for both match rules,
// [Replay], and two searches — an exact depth-first search with a
// transposition table for short piece sequences (it can prove a level
// unsolvable) and an anytime beam search for long ones: rounds of doubling
// width, each width with two weight sets, that go on until the time budget
// runs out, scoring positions by
// points, near-matches with room to finish them, chain potential (the most
// points one dropped jewel sets off), pairs, heights, dead columns and
// bumpiness (docs/columns.md).
//
// # Rules
//
// The board is width×height cells, top row first in JSON; '.' is empty,
// 'A'–'Z' are jewels. Each piece is 3 jewels, top to bottom; a move picks a
// column and a rotation (1: ABC→CAB, 2: ABC→BCA) and drops the piece onto
// that column. A piece that does not fit entirely inside the board loses the
// game. Matches ("lines": runs of 3+ horizontally, vertically or
// diagonally; "groups": 8-connected groups of 3+) vanish all at once, the
// jewels above fall, and matching repeats; chain step k scores k points per
// removed jewel.
//
// # Limits
//
// Parse enforces: width 3–16, height 3–32, 1–[MaxPieces] pieces, a score goal
// in 1–[MaxScore]. The board must be settled and contain no match.
//
// # Results
//
// Plan is `[{"col":2,"rot":1},...]`. Value is the score of the plan: for a
// solved `clear`/`target`/`score` level the plan that reaches the goal and
// stops there (for `score` from the exact search: the highest reachable
// score, Optimal set), for `survive` the best-scoring surviving line of
// any round, for unsolved levels the best-scoring partial line. Details:
// `score` (= Value), `best_score` (the best score found on any line, ≥
// score), `goal_met`, `pieces_placed` and `search` ("exact", "beam" or
// "precheck").
//
// The exact search identifies positions by a 64-bit hash of the board (plus
// the piece index and the target jewel's position); a hash collision could
// in principle prune a position wrongly.
package columns

import (
	"github.com/puzzled/puzzled/solver"
)

// Name is the kind's registered name.
const Name = "columns"

// version names the solver build; bump it when results may change.
const version = "columns/2"

// Config tunes the searches. The zero value means the defaults.
type Config struct {
	// BeamWidth is the number of positions kept per piece by the beam
	// search's first round (default 64).
	BeamWidth int
	// MaxBeamWidth is the width of the beam search's last rounds: each
	// width is played with two weight sets, then doubled until it reaches
	// MaxBeamWidth. The default is 16384 when the solve has a time budget
	// (the rounds then go on until max_ms) and 16·BeamWidth without one;
	// at most 65536. Set it to BeamWidth for one round.
	MaxBeamWidth int
	// Eval names the beam's evaluation: [EvalTuned] (default) or
	// [EvalClassic].
	Eval string
	// ExactNodes is the largest estimated tree size (product of the move
	// counts of all pieces) for which the exact search is used instead of
	// the beam search (default 3e7). Sequences longer than [maxExactPieces]
	// always use the beam search. Negative: never use the exact search.
	ExactNodes float64
}

const (
	defaultBeamWidth  = 64
	defaultExactNodes = 3e7
	untimedWidening   = 16      // last round without a time budget: 16·BeamWidth
	timedMaxBeamWidth = 1 << 14 // last round with a time budget
	maxBeamWidth      = 1 << 16
)

type kind struct {
	cfg Config
}

// New returns the columns kind with the default configuration.
func New() solver.Kind { return NewWithConfig(Config{}) }

// NewWithConfig returns the columns kind with cfg; zero fields take their
// defaults.
func NewWithConfig(cfg Config) solver.Kind {
	if cfg.BeamWidth <= 0 {
		cfg.BeamWidth = defaultBeamWidth
	}
	cfg.BeamWidth = min(cfg.BeamWidth, maxBeamWidth)
	if cfg.MaxBeamWidth > 0 {
		cfg.MaxBeamWidth = min(max(cfg.MaxBeamWidth, cfg.BeamWidth), maxBeamWidth)
	}
	if cfg.Eval != EvalClassic {
		cfg.Eval = EvalTuned
	}
	if cfg.ExactNodes == 0 {
		cfg.ExactNodes = defaultExactNodes
	}
	return &kind{cfg: cfg}
}

func (k *kind) Name() string    { return Name }
func (k *kind) Version() string { return version }

func (k *kind) Parse(data []byte) (solver.Level, error) { return Parse(data) }

var _ solver.Kind = (*kind)(nil)
