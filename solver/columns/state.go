package columns

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/puzzled/puzzled/solver"
)

// StateView is a columns position for drawing: the well (top row first),
// the pieces still to come, the score so far and whether the goal was met.
type StateView struct {
	Width   int      `json:"width"`
	Height  int      `json:"height"`
	Rule    string   `json:"rule"`
	Goal    string   `json:"goal"`
	Target  *[2]int  `json:"target,omitempty"` // the target jewel's cell in the initial well
	Board   []string `json:"board"`
	Next    []string `json:"next"`
	Score   int64    `json:"score"`
	GoalMet bool     `json:"goal_met"`
}

// Cleared is what one placement did: the piece as dropped (top to
// bottom, rotated) into Col, the jewels that vanished over every chain
// step and the points scored.
type Cleared struct {
	Col    int    `json:"col"`
	Piece  string `json:"piece"`
	Jewels int    `json:"jewels"`
	Points int64  `json:"points"`
}

// States lists the state after each prefix of plan (docs/states.md): state
// k is Replay of plan[:k], the simulator.
func States(lvl *Level, plan []Move) ([]solver.State, error) {
	out := make([]solver.State, 0, len(plan)+1)
	prev := Outcome{Board: lvl.Board}
	for k := 0; k <= len(plan); k++ {
		o, err := Replay(lvl, plan[:k])
		if err != nil {
			return nil, err
		}
		if k == 0 {
			o.Board = lvl.Board
		}
		v := StateView{Width: lvl.Width, Height: lvl.Height, Rule: lvl.Rule, Goal: lvl.Goal.Type,
			Board: o.Board, Next: lvl.Pieces[k:], Score: o.Score, GoalMet: o.GoalMet}
		if lvl.Goal.Type == GoalTarget {
			v.Target = &[2]int{lvl.Goal.Row, lvl.Goal.Col}
		}
		st := solver.State{Step: k, View: v, Text: stateText(v, k)}
		if k > 0 {
			mv := plan[k-1]
			st.Move, _ = json.Marshal(mv)
			st.Cleared = Cleared{Col: mv.Col, Piece: rotate(lvl.Pieces[k-1], mv.Rot),
				Jewels: jewels(prev.Board) + 3 - jewels(o.Board), Points: o.Score - prev.Score}
		}
		prev = o
		out = append(out, st)
	}
	return out, nil
}

// rotate turns piece p (top to bottom) by rot: rotation 1 turns ABC into
// CAB, rotation 2 into BCA.
func rotate(p string, rot int) string {
	r := (3 - rot) % 3
	return p[r:] + p[:r]
}

func jewels(rows []string) int {
	n := 0
	for _, r := range rows {
		n += len(r) - strings.Count(r, ".")
	}
	return n
}

// stateText is the canonical text: "columns <k>", "score <points>",
// "goal met" or "goal open", "board" with the rows top first joined by
// "/", and "next" with the pieces to come ("-" when none).
func stateText(v StateView, k int) string {
	goal := "open"
	if v.GoalMet {
		goal = "met"
	}
	next := "-"
	if len(v.Next) > 0 {
		next = strings.Join(v.Next, " ")
	}
	return fmt.Sprintf("columns %d\nscore %d\ngoal %s\nboard %s\nnext %s", k, v.Score, goal,
		strings.Join(v.Board, "/"), next)
}

// States implements solver.Stepper.
func (k *kind) States(lvl solver.Level, plan json.RawMessage) ([]solver.State, error) {
	l, ok := lvl.(*Level)
	if !ok {
		return nil, ErrWrongLevel
	}
	var moves []Move
	if len(plan) > 0 {
		var err error
		if moves, err = ParsePlan(plan); err != nil {
			return nil, err
		}
	}
	return States(l, moves)
}
