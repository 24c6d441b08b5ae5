package sheep

import "github.com/puzzled/puzzled/solver/difficulty"

// The ladder's beam players (solver/difficulty, docs/difficulty.md) on a
// sheep level: game implements difficulty.BeamGame.

// ladderNoise is the beam players' misjudgement, in units of Eval: a
// third of a tray tile, so a player sometimes prefers a position whose
// stacks look a few tiles shallower or that has a few options fewer.
const ladderNoise = 300

// Eval rates a position for the beam players. All positions of a layer
// have clicked as many tiles, so only their shape differs; in order of
// weight: tiles in the tray (each holds a slot until its triple is done),
// tiles dug out (100 per tile that lay transitively beneath each clicked
// tile: the game is lost in tall stacks whose order is forced), clickable
// tiles (options), and tray tiles whose partners are clickable (cheap to
// clear). It is the solver's beam evaluation at dig 100, kept here so the
// figures do not move when the solver's search is tuned.
func (g *game) Eval() int64 {
	b := g.b
	s := -1000*int64(b.traySize) + 40*int64(len(b.clk)) + 100*g.dug
	for t, c := range b.tray {
		if c == 0 {
			continue
		}
		switch have := int64(c) + int64(b.clkTyp[t]); {
		case have >= 3:
			s += 300
		case have == 2 && c == 1:
			s += 100
		}
	}
	return s
}

// Fork implements difficulty.BeamGame.
func (g *game) Fork(dst difficulty.BeamGame) difficulty.BeamGame {
	d, ok := dst.(*game)
	if !ok {
		d = &game{b: g.b.sibling()}
	}
	d.b.copyFrom(g.b)
	d.played = d.played[:0]
	d.dug = g.dug
	return d
}

// Hash is the board's Zobrist hash of the removed set, which fixes the
// tray too.
func (g *game) Hash() uint64 { return g.b.hash }

// Doomed implements difficulty.Doomer with the tray-pressure bound
// (pressure.go): no triple can be completed before the tray fills.
func (g *game) Doomed() bool {
	b := g.b
	return b.left > 0 && b.traySize < b.l.slots && !b.tripleWithin()
}
