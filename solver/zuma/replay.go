package zuma

import (
	"fmt"
)

// Move inserts Ball at index At of the board as it is then.
type Move struct {
	At   int    `json:"at"`
	Ball string `json:"ball"`
}

// Outcome is where a plan leaves a level.
type Outcome struct {
	Board    string // the board after the last move
	Vanished int    // balls vanished, inserted ones included
	Shots    int    // moves played
}

// Cleared reports whether the board is empty.
func (o Outcome) Cleared() bool { return o.Board == "" }

// Replay plays plan on lvl and returns the outcome. It fails if a move is
// out of range, uses a ball that is not a color, or (hand mode) a ball not
// left in hand, or (ammo mode) not the next ammo ball.
func Replay(lvl *Level, plan []Move) (Outcome, error) {
	b := []byte(lvl.Board)
	var hand [26]int
	for i := 0; i < len(lvl.Hand); i++ {
		hand[lvl.Hand[i]-'A']++
	}
	if lvl.Mode == ModeAmmo && len(plan) > len(lvl.Ammo) {
		return Outcome{}, fmt.Errorf("plan: %d shots, only %d ammo balls", len(plan), len(lvl.Ammo))
	}
	var out Outcome
	next := make([]byte, 0, len(b)+1)
	for i, mv := range plan {
		if len(mv.Ball) != 1 || mv.Ball[0] < 'A' || mv.Ball[0] > 'Z' {
			return Outcome{}, fmt.Errorf("plan[%d]: ball %q is not a color", i, mv.Ball)
		}
		c := mv.Ball[0]
		if mv.At < 0 || mv.At > len(b) {
			return Outcome{}, fmt.Errorf("plan[%d]: at %d outside [0, %d]", i, mv.At, len(b))
		}
		switch lvl.Mode {
		case ModeHand:
			if hand[c-'A'] == 0 {
				return Outcome{}, fmt.Errorf("plan[%d]: no %c left in hand", i, c)
			}
			hand[c-'A']--
		case ModeAmmo:
			if lvl.Ammo[i] != c {
				return Outcome{}, fmt.Errorf("plan[%d]: ball %c, the ammo has %c there", i, c, lvl.Ammo[i])
			}
		}
		var v int
		next, v = insert(next, b, mv.At, c)
		b, next = next, b
		out.Vanished += v
	}
	out.Board = string(b)
	out.Shots = len(plan)
	return out, nil
}
