package difficulty

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
)

// BeamGame is a [Game] the ladder's beam players can play: besides moving
// forward and back, a position can be copied and rated on its own. A kind
// whose game implements it gets the ladder (ladder.go).
type BeamGame interface {
	Game
	// Eval is a static value of the current position for the beam
	// players, higher is better. Positions of one beam layer have made
	// the same number of moves, so it only needs to compare those.
	Eval() int64
	// Fork copies the current position into dst (a game of the same
	// level made by an earlier Fork, or nil for a new one) and returns
	// it. The copy needs no undo history: it is only played forward
	// from there, and taken back at most to where it was forked.
	Fork(dst BeamGame) BeamGame
	// Hash is a 64-bit hash of the position that the beam uses to keep
	// a position reached twice in a layer once. Equal positions must
	// have equal hashes; a collision only drops a candidate.
	Hash() uint64
}

// Doomer is an optional method set of a [BeamGame] whose kind can tell
// cheaply that some positions cannot be won any more, though the game
// goes on: the beam players drop them, as a player who sees the dead end.
type Doomer interface {
	Doomed() bool
}

// beamNode is one candidate of the next beam layer: move of the parent
// position at index parent of the current layer, its rating and the
// order it was generated in (the tie-break, so a layer is a function of
// the positions and the generator, not of the sort).
type beamNode struct {
	parent int32
	move   int
	score  int64
	order  int32
}

// beamPlayer plays one game of the beam player of the given width: it
// keeps the width best positions of each move depth (by Eval plus a
// noise in [0, noise) drawn from rng, the player's misjudgement) and
// expands all of them; it wins when a position of the beam is won. It
// returns the positions it rated (its cost). Every position it keeps is
// a legal sequence of moves from the start, so a win is a win of the
// level; the player only ever plays forward, it proves nothing.
type beamPlayer struct {
	width int
	noise int64

	cur, next, spare []BeamGame
	kids             []beamNode
	seen             map[uint64]struct{}
	moves            []int
}

func newBeamPlayer(width int, noise int64) *beamPlayer {
	return &beamPlayer{width: width, noise: noise, seen: map[uint64]struct{}{}}
}

// play runs one game from root (not changed) and reports whether it won
// and how many positions it rated. It checks ctx once per layer.
func (p *beamPlayer) play(ctx context.Context, root BeamGame, rng *rand.Rand) (won bool, nodes int64, err error) {
	p.spare = append(p.spare, p.cur...)
	p.cur = append(p.cur[:0], root.Fork(p.take()))
	for len(p.cur) > 0 {
		if err := ctx.Err(); err != nil {
			return false, nodes, fmt.Errorf("difficulty: beam of %d: %w", p.width, err)
		}
		p.kids = p.kids[:0]
		clear(p.seen)
		for pi, g := range p.cur {
			p.moves = g.Moves(p.moves[:0])
			for _, m := range p.moves {
				g.Play(m)
				nodes++
				switch g.Status() {
				case Won:
					g.Undo()
					return true, nodes, nil
				case Playing:
					p.consider(g, pi, m, rng)
				}
				g.Undo()
			}
		}
		p.advance()
	}
	return false, nodes, nil
}

// consider adds the position g (reached by move m of layer position pi)
// to the next layer's candidates unless the layer already has it.
func (p *beamPlayer) consider(g BeamGame, pi, m int, rng *rand.Rand) {
	h := g.Hash()
	if _, dup := p.seen[h]; dup {
		return
	}
	p.seen[h] = struct{}{}
	if d, ok := g.(Doomer); ok && d.Doomed() {
		return
	}
	score := g.Eval()
	if p.noise > 0 {
		score += rng.Int64N(p.noise)
	}
	p.kids = append(p.kids, beamNode{parent: int32(pi), move: m, score: score, order: int32(len(p.kids))})
}

// advance makes the best width candidates the current layer.
func (p *beamPlayer) advance() {
	if len(p.kids) > p.width {
		slices.SortFunc(p.kids, func(x, y beamNode) int {
			switch {
			case x.score > y.score:
				return -1
			case x.score < y.score:
				return 1
			}
			return int(x.order - y.order)
		})
		p.kids = p.kids[:p.width]
	}
	p.next = p.next[:0]
	for _, k := range p.kids {
		g := p.cur[k.parent].Fork(p.take())
		g.Play(k.move)
		p.next = append(p.next, g)
	}
	p.spare = append(p.spare, p.cur...)
	p.cur, p.next = p.next, p.cur
}

// take returns a spare game for Fork, or nil.
func (p *beamPlayer) take() BeamGame {
	n := len(p.spare)
	if n == 0 {
		return nil
	}
	g := p.spare[n-1]
	p.spare = p.spare[:n-1]
	return g
}
