package columns

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Move places one piece: column Col (0 = left), rotation Rot (0, 1, 2).
type Move struct {
	Col int `json:"col"`
	Rot int `json:"rot"`
}

// Outcome is what a plan achieves.
type Outcome struct {
	Score   int64    // total points
	Placed  int      // pieces placed (= plan length)
	GoalMet bool     // the goal was reached after some placement
	GoalAt  int      // placements made when the goal was first reached, -1 if never
	Board   []string // final board, top row first
}

// ErrTopOut is wrapped by Replay when a piece does not fit.
var ErrTopOut = errors.New("piece does not fit: the game is lost")

// Replay plays plan on lvl and reports the outcome. It fails on a move
// outside the board, on a plan longer than the piece list and when a piece
// tops out (wrapping [ErrTopOut]).
func Replay(lvl *Level, plan []Move) (Outcome, error) {
	if len(plan) > len(lvl.pieces) {
		return Outcome{}, fmt.Errorf("plan has %d moves for %d pieces", len(plan), len(lvl.pieces))
	}
	g := &lvl.geom
	b := lvl.start
	t := lvl.initialTarget()
	out := Outcome{GoalAt: -1}
	for i, mv := range plan {
		if mv.Col < 0 || mv.Col >= lvl.Width || mv.Rot < 0 || mv.Rot > 2 {
			return out, fmt.Errorf("plan[%d]: col must be 0–%d and rot 0–2, got col %d rot %d", i, lvl.Width-1, mv.Col, mv.Rot)
		}
		gain, ok := g.place(&b, mv.Col, mv.Rot, &lvl.pieces[i], &t)
		if !ok {
			return out, fmt.Errorf("plan[%d]: column %d: %w", i, mv.Col, ErrTopOut)
		}
		out.Score += int64(gain)
		out.Placed = i + 1
		if out.GoalAt < 0 && lvl.goalReached(&b, out.Score, t, i+1) {
			out.GoalAt = i + 1
		}
	}
	out.GoalMet = out.GoalAt >= 0
	out.Board = rowsFromBoard(&b, lvl.Width, lvl.Height)
	return out, nil
}

// goalReached reports whether the goal holds after placed placements.
func (l *Level) goalReached(b *board, score int64, t target, placed int) bool {
	switch l.Goal.Type {
	case GoalClear:
		return l.geom.empty(b)
	case GoalScore:
		return score >= l.Goal.Score
	case GoalTarget:
		return t.hit()
	default: // survive
		return placed == len(l.pieces)
	}
}

// ParsePlan decodes a plan, rejecting unknown fields.
func ParsePlan(data []byte) ([]Move, error) {
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	plan := make([]Move, len(raw))
	for i, r := range raw {
		var mv struct {
			Col *int `json:"col"`
			Rot *int `json:"rot"`
		}
		if err := decodeStrict(r, &mv); err != nil {
			return nil, fmt.Errorf("plan[%d]: %w", i, err)
		}
		if mv.Col == nil || mv.Rot == nil {
			return nil, fmt.Errorf("plan[%d]: needs col and rot", i)
		}
		plan[i] = Move{Col: *mv.Col, Rot: *mv.Rot}
	}
	return plan, nil
}

// encodePlan turns move indices (col*3+rot) into plan JSON.
func encodePlan(moves []uint8) []byte {
	plan := make([]Move, len(moves))
	for i, m := range moves {
		plan[i] = Move{Col: int(m) / 3, Rot: int(m) % 3}
	}
	out, _ := json.Marshal(plan)
	return out
}
