package zuma

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/puzzled/puzzled/solver"
)

// Position implements solver.Positioner. The moves are every insertion
// point of every ball that can be shot next: the hand's colors, the next
// ammo ball, or, in unlimited mode, the colors of the level's board (a
// color it does not hold is legal too, but the page offers these). The
// position's level is the board left with the hand or ammo left. Value is
// the insertions so far (balls vanished so far with ammo); only hand mode
// is won or lost, the others ask for a best value.
func (kind) Position(lvl solver.Level, plan json.RawMessage) (solver.Position, error) {
	l, ok := lvl.(*Level)
	if !ok {
		return solver.Position{}, fmt.Errorf("zuma: level of kind %q", lvl.Kind())
	}
	var moves []Move
	if len(plan) > 0 {
		var err error
		if moves, err = DecodePlan(plan); err != nil {
			return solver.Position{}, err
		}
	}
	o, err := Replay(l, moves)
	if err != nil {
		return solver.Position{}, err
	}
	v := view(l, moves, o.Board)
	p := solver.Position{Sign: 1, Goal: l.Mode == ModeHand, Value: int64(len(moves)), Scored: true}
	if l.Mode == ModeAmmo {
		p.Value = int64(o.Vanished)
	}
	var balls string
	switch l.Mode {
	case ModeHand:
		balls = distinct(v.Hand)
	case ModeAmmo:
		if v.Ammo != "" {
			balls = v.Ammo[:1]
		}
	default:
		balls = distinct(l.Board)
	}
	switch {
	case o.Board == "":
		p.Won, p.Over = true, true
		return p, nil
	case balls == "":
		p.Lost, p.Over = p.Goal, true // nothing left to shoot
		return p, nil
	}
	for _, c := range []byte(balls) {
		for at := 0; at <= len(o.Board); at++ {
			mv, _ := json.Marshal(Move{At: at, Ball: string(c)})
			p.Moves = append(p.Moves, mv)
		}
	}
	next := map[string]string{"kind": Name, "board": o.Board}
	switch l.Mode {
	case ModeHand:
		next["hand"] = v.Hand
	case ModeAmmo:
		next["ammo"] = v.Ammo
	}
	data, _ := json.Marshal(next)
	if p.Level, err = Parse(data); err != nil {
		return p, fmt.Errorf("zuma: position does not parse: %w", err)
	}
	return p, nil
}

// distinct returns the distinct balls of s, sorted.
func distinct(s string) string {
	seen := map[byte]bool{}
	var out []byte
	for i := 0; i < len(s); i++ {
		if !seen[s[i]] {
			seen[s[i]] = true
			out = append(out, s[i])
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return string(out)
}
