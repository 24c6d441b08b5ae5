package zuma

import (
	"context"
	"fmt"

	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/difficulty"
)

// game plays a hand or ammo level for the difficulty figures. A move is
// one of the distinct insertions of [appendMoves] (inserting next to a run
// of the same color is one move, wherever in the run), encoded at*32+color.
//
// Hand mode wins by emptying the board and loses when the hand is empty
// first. Ammo mode shoots the ammo in order and wins once as many balls
// have vanished as the optimum (the player may stop there); it loses when
// the ammo runs out before.
//
// The greedy player plays a move that makes the most balls vanish, then
// one that puts the ball next to the most balls of its color.
type game struct {
	lvl      *Level
	target   int // ammo: balls to vanish for a win
	board    []byte
	hand     [26]int8
	shot     int // ammo balls shot
	vanished int
	undo     []undoRec
}

type undoRec struct {
	board    []byte
	ball     byte
	vanished int
}

func newGame(l *Level, target int) difficulty.NewGame {
	return func() difficulty.Game {
		g := &game{lvl: l, target: target, board: []byte(l.Board)}
		g.hand = handCounts(l.Hand)
		return g
	}
}

func (g *game) Moves(dst []int) []int {
	var mv [64]move
	if g.lvl.Mode == ModeAmmo {
		if g.shot < len(g.lvl.Ammo) {
			for _, m := range appendMoves(mv[:0], g.board, g.lvl.Ammo[g.shot]) {
				dst = append(dst, encodeMove(m))
			}
		}
		return dst
	}
	for c := range g.hand {
		if g.hand[c] > 0 {
			for _, m := range appendMoves(mv[:0], g.board, byte('A'+c)) {
				dst = append(dst, encodeMove(m))
			}
		}
	}
	return dst
}

func encodeMove(m move) int { return m.at*32 + int(m.ball-'A') }

func decodeMove(x int) (at int, c byte) { return x / 32, byte('A' + x%32) }

func (g *game) Play(x int) {
	at, c := decodeMove(x)
	g.undo = append(g.undo, undoRec{board: g.board, ball: c, vanished: g.vanished})
	next, v := insert(make([]byte, 0, len(g.board)+1), g.board, at, c)
	g.board = next
	g.vanished += v
	if g.lvl.Mode == ModeAmmo {
		g.shot++
	} else {
		g.hand[c-'A']--
	}
}

func (g *game) Undo() {
	u := g.undo[len(g.undo)-1]
	g.undo = g.undo[:len(g.undo)-1]
	g.board, g.vanished = u.board, u.vanished
	if g.lvl.Mode == ModeAmmo {
		g.shot--
	} else {
		g.hand[u.ball-'A']++
	}
}

func (g *game) Status() difficulty.Status {
	if g.lvl.Mode == ModeAmmo {
		switch {
		case g.vanished >= g.target:
			return difficulty.Won
		case g.shot == len(g.lvl.Ammo):
			return difficulty.Lost
		}
		return difficulty.Playing
	}
	if len(g.board) == 0 {
		return difficulty.Won
	}
	for _, n := range g.hand {
		if n > 0 {
			return difficulty.Playing
		}
	}
	return difficulty.Lost
}

func (g *game) Greedy(x int) int {
	at, c := decodeMove(x)
	lo, hi := chain(g.board, at, c)
	near := 0
	for i := at - 1; i >= 0 && g.board[i] == c; i-- {
		near++
	}
	for i := at; i < len(g.board) && g.board[i] == c; i++ {
		near++
	}
	return 100*(hi-lo) + near
}

// Key is the board and the hand (hand mode) or the shots (ammo mode); the
// balls vanished follow from them.
func (g *game) Key(dst []byte) []byte {
	dst = append(dst, g.board...)
	dst = append(dst, '|')
	if g.lvl.Mode == ModeAmmo {
		return append(dst, byte(g.shot), byte(g.shot>>8))
	}
	for _, n := range g.hand {
		dst = append(dst, byte(n))
	}
	return dst
}

// Decide implements difficulty.Decider with the mode's own solver on the
// rest of the game: the board as it is, the balls left.
func (g *game) Decide(ctx context.Context, maxNodes int64) (bool, int64, bool) {
	if st := g.Status(); st != difficulty.Playing {
		return st == difficulty.Won, 0, true
	}
	opts := solver.Options{Budget: solver.Budget{MaxNodes: maxNodes}}
	var res solver.Result
	var err error
	if g.lvl.Mode == ModeAmmo {
		rest := &Level{Board: string(g.board), Ammo: g.lvl.Ammo[g.shot:], Mode: ModeAmmo}
		res, err = solveAmmo(ctx, rest, opts)
		if err != nil || res.Verdict != solver.Solved {
			return false, res.Stats.Nodes, false
		}
		return g.vanished+int(*res.Value) >= g.target, res.Stats.Nodes, true
	}
	rest := &Level{Board: string(g.board), Hand: g.handString(), Mode: ModeHand}
	res, err = solveHand(ctx, rest, opts)
	if err != nil || !res.Verdict.Definitive() {
		return false, res.Stats.Nodes, false
	}
	return res.Verdict == solver.Solved, res.Stats.Nodes, true
}

// handString is the hand left, sorted.
func (g *game) handString() string {
	var out []byte
	for c, n := range g.hand {
		for ; n > 0; n-- {
			out = append(out, byte('A'+c))
		}
	}
	return string(out)
}

// Rate implements difficulty.Rater for hand and ammo levels; unlimited
// levels (any ball, any number) have no player to measure and give
// [difficulty.ErrNotRated].
func (kind) Rate(ctx context.Context, lvl solver.Level, res solver.Result, opts difficulty.Options) (difficulty.Figures, error) {
	l, ok := lvl.(*Level)
	if !ok {
		return difficulty.Figures{}, fmt.Errorf("zuma: level of kind %q", lvl.Kind())
	}
	target, desc := 0, "empty the board"
	switch l.Mode {
	case ModeUnlimited:
		return difficulty.Figures{}, difficulty.ErrNotRated
	case ModeAmmo:
		if res.Value == nil {
			return difficulty.Figures{}, fmt.Errorf("zuma: rate: ammo result without a value")
		}
		target = int(*res.Value)
		desc = fmt.Sprintf("make %d balls vanish (the optimum)", target)
	}
	if opts.Noise == 0 {
		opts.Noise = ladderNoise
	}
	f, err := difficulty.Measure(ctx, newGame(l, target), res, opts)
	f.Target = desc
	return f, err
}
