package zuma

import (
	"fmt"
	"iter"

	"github.com/puzzled/puzzled/solver"
)

// The repair's edits (solver/repair) of a hand level, all of size 1: one
// ball of a color on the board added to the hand (colors in order), then
// one ball of the hand changed to another color on the board. Ammo levels
// are never unsolvable (they have an optimum) and unlimited ones have no
// hand: they have no edits.

// MaxEditSize implements solver.Editor.
func (kind) MaxEditSize() int { return 1 }

// Edits implements solver.Editor.
func (kind) Edits(lvl solver.Level, size int) iter.Seq[solver.Edit] {
	return func(yield func(solver.Edit) bool) {
		l, ok := lvl.(*Level)
		if !ok || l.Mode != ModeHand || size != 1 {
			return
		}
		colors := colorsOf(l.Board)
		if len(l.Hand) < MaxHand {
			for _, c := range colors {
				if !yield(handEdit(l, fmt.Sprintf("add a %c to the hand", c), l.Hand+string(c))) {
					return
				}
			}
		}
		for _, from := range colorsOf(l.Hand) {
			at := -1
			for i := 0; i < len(l.Hand); i++ {
				if l.Hand[i] == from {
					at = i
					break
				}
			}
			for _, to := range colors {
				if to == from {
					continue
				}
				hand := l.Hand[:at] + string(to) + l.Hand[at+1:]
				if !yield(handEdit(l, fmt.Sprintf("change a %c of the hand to %c", from, to), hand)) {
					return
				}
			}
		}
	}
}

func handEdit(l *Level, desc, hand string) solver.Edit {
	return solver.Edit{Desc: desc, Apply: func() (solver.Level, error) {
		return &Level{Board: l.Board, Hand: sortedBalls([]byte(hand)), Mode: ModeHand}, nil
	}}
}
