package columns

import "github.com/puzzled/puzzled/solver/difficulty"

// The ladder's beam players (solver/difficulty, docs/difficulty.md) on a
// columns level: game implements difficulty.BeamGame.

// ladderNoise is the beam players' misjudgement, in units of Eval: about
// a point scored, or a column one jewel higher near the top.
const ladderNoise = 40

// Eval rates a position for the beam players with the classic evaluation
// (columns/1's weights: points, adjacent pairs, jewels, height danger;
// eval.go), which the solver keeps as its baseline, so the figures do not
// move when the solver's own evaluation is tuned.
func (g *game) Eval() int64 {
	return g.eval.eval(&g.pos.b, g.pos.score, g.pos.t, len(g.l.pieces)-g.pos.placed)
}

// Fork implements difficulty.BeamGame.
func (g *game) Fork(dst difficulty.BeamGame) difficulty.BeamGame {
	d, ok := dst.(*game)
	if !ok {
		d = &game{l: g.l, moves: g.moves, eval: g.eval}
	}
	d.pos = g.pos
	d.undo = d.undo[:0]
	return d
}

// Hash is the board's hash with the target, mixed with the score (two
// positions with one board and different scores differ for a score goal).
func (g *game) Hash() uint64 {
	return g.l.geom.hash(&g.pos.b, g.pos.t) ^ fmix64(uint64(g.pos.score)+0x9E3779B97F4A7C15)
}
