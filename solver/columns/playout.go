package columns

import (
	"context"
	"fmt"

	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/difficulty"
)

// game plays a columns level for the difficulty figures. A move is a
// distinct placement of the next piece (col*3+rot, see moveLists). The
// game is won when the level's goal is reached and lost when a piece does
// not fit or the pieces run out first.
//
// The greedy player plays a placement that scores the most points now,
// then (target goal) one that removes the target, then one that leaves the
// lowest column where the piece landed.
type game struct {
	l     *Level
	moves [][]uint8
	pos   gamePos
	undo  []gamePos
	eval  evaluator // the beam players' Eval (ladder.go)
}

// gamePos is one position: the board after placed pieces.
type gamePos struct {
	b      board
	t      target
	score  int64
	placed int
	lost   bool
}

func newGame(l *Level) difficulty.NewGame {
	moves := moveLists(l)
	ev := newEvaluator(l, EvalClassic, false)
	return func() difficulty.Game {
		return &game{l: l, moves: moves, pos: gamePos{b: l.start, t: l.initialTarget()}, eval: ev}
	}
}

func (g *game) Moves(dst []int) []int {
	if g.pos.placed >= len(g.l.pieces) {
		return dst
	}
	for _, m := range g.moves[g.pos.placed] {
		dst = append(dst, int(m))
	}
	return dst
}

func (g *game) Play(m int) {
	g.undo = append(g.undo, g.pos)
	g.pos = g.after(g.pos, m)
}

// after is p with move m played.
func (g *game) after(p gamePos, m int) gamePos {
	gain, ok := g.l.geom.place(&p.b, m/3, m%3, &g.l.pieces[p.placed], &p.t)
	p.placed++
	p.score += int64(gain)
	p.lost = !ok
	return p
}

func (g *game) Undo() {
	g.pos = g.undo[len(g.undo)-1]
	g.undo = g.undo[:len(g.undo)-1]
}

func (g *game) Status() difficulty.Status {
	p := &g.pos
	switch {
	case p.lost:
		return difficulty.Lost
	case p.placed > 0 && g.l.goalReached(&p.b, p.score, p.t, p.placed):
		return difficulty.Won
	case p.placed == len(g.l.pieces):
		return difficulty.Lost
	}
	return difficulty.Playing
}

func (g *game) Greedy(m int) int {
	before := g.pos
	p := g.after(before, m)
	if p.lost {
		return -1 << 30
	}
	v := 1000 * int(p.score-before.score)
	if p.t.hit() && !before.t.hit() {
		v += 500
	}
	return v - int(p.b.h[m/3])
}

// Key is the board, the pieces placed, the target and (score goal only,
// where it decides the future) the score.
func (g *game) Key(dst []byte) []byte {
	p := &g.pos
	for c := 0; c < g.l.Width; c++ {
		dst = append(dst, p.b.cells[c*stride:c*stride+int(p.b.h[c])]...)
		dst = append(dst, '|')
	}
	dst = append(dst, byte(p.placed), byte(p.placed>>8), byte(p.t.c), byte(p.t.r))
	if g.l.Goal.Type == GoalScore {
		for s := uint64(p.score); s != 0; s >>= 8 {
			dst = append(dst, byte(s))
		}
	}
	return dst
}

// Rate implements difficulty.Rater: a playout wins by reaching the goal.
func (k *kind) Rate(ctx context.Context, lvl solver.Level, res solver.Result, opts difficulty.Options) (difficulty.Figures, error) {
	l, ok := lvl.(*Level)
	if !ok {
		return difficulty.Figures{}, fmt.Errorf("columns: level of kind %q", lvl.Kind())
	}
	if opts.Noise == 0 {
		opts.Noise = ladderNoise
	}
	f, err := difficulty.Measure(ctx, newGame(l), res, opts)
	f.Target = "reach the goal (" + l.Goal.Type + ")"
	return f, err
}
