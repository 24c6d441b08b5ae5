package columns

import (
	"encoding/json"
	"fmt"

	"github.com/puzzled/puzzled/solver"
)

// Position implements solver.Positioner. The moves are the placements of
// the next piece (every column and rotation) that fit: a piece that does
// not fit loses at once, so it is not offered, and a position where none
// fits is lost. The position's level is the well as it is, the pieces
// left and the goal left: a score goal asks for the points still missing,
// a target goal names the target jewel's cell now. Value is the score so
// far.
func (k *kind) Position(lvl solver.Level, plan json.RawMessage) (solver.Position, error) {
	l, ok := lvl.(*Level)
	if !ok {
		return solver.Position{}, ErrWrongLevel
	}
	var moves []Move
	if len(plan) > 0 {
		var err error
		if moves, err = ParsePlan(plan); err != nil {
			return solver.Position{}, err
		}
	}
	o, err := Replay(l, moves)
	if err != nil {
		return solver.Position{}, err
	}
	p := solver.Position{Sign: 1, Goal: true, Value: o.Score, Scored: true, Won: o.GoalMet, Over: o.GoalMet}
	if p.Won {
		return p, nil
	}
	if len(moves) == len(l.pieces) {
		p.Lost, p.Over = true, true
		return p, nil
	}
	b, t := l.start, l.initialTarget()
	for i, mv := range moves {
		l.geom.place(&b, mv.Col, mv.Rot, &l.pieces[i], &t)
	}
	next := &l.pieces[len(moves)]
	for col := 0; col < l.Width; col++ {
		for rot := 0; rot < 3; rot++ {
			nb, nt := b, t
			if _, fits := l.geom.place(&nb, col, rot, next, &nt); fits {
				mv, _ := json.Marshal(Move{Col: col, Rot: rot})
				p.Moves = append(p.Moves, mv)
			}
		}
	}
	if len(p.Moves) == 0 {
		p.Lost, p.Over = true, true
		return p, nil
	}
	g := &goalJSON{Type: l.Goal.Type}
	switch l.Goal.Type {
	case GoalScore:
		missing := l.Goal.Score - o.Score
		g.Score = &missing
	case GoalTarget:
		g.Cell = &[2]int{l.Height - 1 - int(t.r), int(t.c)}
	}
	data, err := json.Marshal(levelJSON{Kind: Name, Width: l.Width, Height: l.Height, Rule: l.Rule,
		Board: rowsFromBoard(&b, l.Width, l.Height), Pieces: l.Pieces[len(moves):], Goal: g})
	if err != nil {
		return p, fmt.Errorf("columns: position: %w", err)
	}
	if p.Level, err = Parse(data); err != nil {
		return p, fmt.Errorf("columns: position does not parse: %w", err)
	}
	return p, nil
}
