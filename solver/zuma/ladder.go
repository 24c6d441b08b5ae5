package zuma

import "github.com/puzzled/puzzled/solver/difficulty"

// The ladder's beam players (solver/difficulty, docs/difficulty.md) on a
// hand or ammo level: game implements difficulty.BeamGame.

// ladderNoise is the beam players' misjudgement, in units of Eval: half a
// ball on the board.
const ladderNoise = 50

// Eval rates a position for the beam players. All positions of a layer
// have used as many balls. Hand mode: fewer balls on the board, then
// runs of two or more whose color is still in hand (one ball clears
// them), then fewer runs (fewer colors to match). Ammo mode: more balls
// vanished (the target), then the same shape terms.
func (g *game) Eval() int64 {
	var runs, ready int64
	for i := 0; i < len(g.board); {
		j := i
		for j < len(g.board) && g.board[j] == g.board[i] {
			j++
		}
		runs++
		if j-i >= 2 && (g.lvl.Mode == ModeAmmo || g.hand[g.board[i]-'A'] > 0) {
			ready++
		}
		i = j
	}
	s := 30*ready - 20*runs
	if g.lvl.Mode == ModeAmmo {
		return s + 1000*int64(g.vanished) - 10*int64(len(g.board))
	}
	return s - 100*int64(len(g.board))
}

// Fork implements difficulty.BeamGame. Boards are never changed in place
// (Play builds a new one), so the copy shares the board's bytes.
func (g *game) Fork(dst difficulty.BeamGame) difficulty.BeamGame {
	d, ok := dst.(*game)
	if !ok {
		d = &game{}
	}
	d.lvl, d.target, d.board, d.hand, d.shot, d.vanished = g.lvl, g.target, g.board, g.hand, g.shot, g.vanished
	d.undo = d.undo[:0]
	return d
}

// Hash is FNV-1a over the position's Key.
func (g *game) Hash() uint64 {
	var buf [96]byte
	h := uint64(14695981039346656037)
	for _, c := range g.Key(buf[:0]) {
		h = (h ^ uint64(c)) * 1099511628211
	}
	return h
}
