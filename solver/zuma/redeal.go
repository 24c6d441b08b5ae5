package zuma

import (
	"fmt"
	"math/rand/v2"

	"github.com/puzzled/puzzled/solver"
)

// Redeal implements the generator's dealer (solver/generate): a new level
// of the same shape as lvl — its mode, board length, hand or ammo length
// and colors — with balls drawn anew: a board without a run of three (it
// would vanish at once) and a hand or ammo of the same colors. Unlimited
// levels have no supply to deal.
func (kind) Redeal(rng *rand.Rand, lvl solver.Level) (solver.Level, error) {
	l, ok := lvl.(*Level)
	if !ok {
		return nil, fmt.Errorf("zuma: redeal: level of kind %q", lvl.Kind())
	}
	if l.Mode == ModeUnlimited {
		return nil, fmt.Errorf("zuma: redeal: unlimited levels have no hand or ammo to deal")
	}
	colors := colorsOf(l.Board + l.Hand + l.Ammo)
	board := make([]byte, 0, len(l.Board))
	for len(board) < len(l.Board) {
		c := colors[rng.IntN(len(colors))]
		if k := len(board); k >= 2 && board[k-1] == c && board[k-2] == c {
			continue
		}
		board = append(board, c)
	}
	supply := make([]byte, len(l.Hand)+len(l.Ammo))
	for i := range supply {
		supply[i] = colors[rng.IntN(len(colors))]
	}
	out := &Level{Board: string(board), Mode: l.Mode}
	if l.Mode == ModeAmmo {
		out.Ammo = string(supply)
	} else {
		out.Hand = sortedBalls(supply)
	}
	return out, nil
}

// colorsOf lists the distinct balls of s in ascending order.
func colorsOf(s string) []byte {
	var seen [256]bool
	var out []byte
	for i := 0; i < len(s); i++ {
		seen[s[i]] = true
	}
	for c := range seen {
		if seen[c] {
			out = append(out, byte(c))
		}
	}
	return out
}

func sortedBalls(b []byte) string {
	var n [256]int
	for _, c := range b {
		n[c]++
	}
	out := make([]byte, 0, len(b))
	for c := range n {
		for range n[c] {
			out = append(out, byte(c))
		}
	}
	return string(out)
}
