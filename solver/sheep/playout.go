package sheep

import (
	"context"

	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/difficulty"
)

// game plays a sheep level for the difficulty figures. Moves are every
// clickable tile, losing clicks included: a player may fill the tray.
// Clickability does not depend on the tray, so the same seed makes the
// same clicks whatever the slots, until the tray fills; a deal with fewer
// slots can only lose more often.
//
// The greedy player clicks a tile whose type already has the most tiles in
// the tray (completing a triple first), then the tile that frees the most
// tiles beneath it. It never looks at the slots.
type game struct {
	b      *board
	played []int32
	dug    int64 // tiles that lay transitively beneath the clicked tiles (ladder.go)
}

func newGame(l *Level) difficulty.NewGame {
	return func() difficulty.Game { return &game{b: newBoard(l)} }
}

func (g *game) Moves(dst []int) []int {
	for _, t := range g.b.clk {
		dst = append(dst, int(t))
	}
	return dst
}

func (g *game) Play(m int) {
	g.b.apply(int32(m))
	g.played = append(g.played, int32(m))
	g.dug += int64(g.b.l.beneath[m])
}

func (g *game) Undo() {
	last := len(g.played) - 1
	g.b.undo(g.played[last])
	g.dug -= int64(g.b.l.beneath[g.played[last]])
	g.played = g.played[:last]
}

func (g *game) Status() difficulty.Status {
	switch {
	case g.b.left == 0 && g.b.traySize == 0:
		return difficulty.Won
	case g.b.left == 0, g.b.traySize >= g.b.l.slots:
		return difficulty.Lost // tiles left in the tray for good, or a full tray
	}
	return difficulty.Playing
}

func (g *game) Greedy(m int) int {
	freed := 0
	for _, c := range g.b.l.below[m] {
		if g.b.cov[c] == 1 {
			freed++
		}
	}
	return 1000*int(g.b.tray[g.b.l.typ[m]]) + freed
}

// Key is the removed set, which fixes the tray too.
func (g *game) Key(dst []byte) []byte {
	for _, w := range g.b.removed {
		dst = append(dst, byte(w), byte(w>>8), byte(w>>16), byte(w>>24),
			byte(w>>32), byte(w>>40), byte(w>>48), byte(w>>56))
	}
	return dst
}

// Rate implements difficulty.Rater: a playout wins by clearing every tile.
func (kind) Rate(ctx context.Context, lvl solver.Level, res solver.Result, opts difficulty.Options) (difficulty.Figures, error) {
	l, err := asLevel(lvl)
	if err != nil {
		return difficulty.Figures{}, err
	}
	if opts.Noise == 0 {
		opts.Noise = ladderNoise
	}
	f, err := difficulty.Measure(ctx, newGame(l), res, opts)
	f.Target = "clear every tile"
	return f, err
}
