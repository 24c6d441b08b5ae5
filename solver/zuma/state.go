package zuma

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/puzzled/puzzled/solver"
)

// StateView is a zuma position for drawing: the chain and what is left to
// shoot (Hand sorted, or Ammo in shot order; both empty in unlimited mode).
type StateView struct {
	Mode  Mode   `json:"mode"`
	Board string `json:"board"`
	Hand  string `json:"hand,omitempty"`
	Ammo  string `json:"ammo,omitempty"`
}

// Cleared is what one move did: Inserted is the board with the new ball
// at At, before anything vanished; the balls Inserted[From:To] vanished
// (From == To: nothing did).
type Cleared struct {
	Inserted string `json:"inserted"`
	At       int    `json:"at"`
	From     int    `json:"from"`
	To       int    `json:"to"`
}

// States lists the state after each prefix of plan (docs/states.md): state
// k is Replay of plan[:k], so the texts are the simulator's by
// construction; Cleared comes from the simulator's own chain.
func States(lvl *Level, plan []Move) ([]solver.State, error) {
	out := make([]solver.State, 0, len(plan)+1)
	board := lvl.Board
	for k := 0; k <= len(plan); k++ {
		o, err := Replay(lvl, plan[:k])
		if err != nil {
			return nil, err
		}
		st := solver.State{Step: k, View: view(lvl, plan[:k], o.Board)}
		st.Text = stateText(st.View.(StateView), k)
		if k > 0 {
			mv := plan[k-1]
			st.Move, _ = json.Marshal(mv)
			c := mv.Ball[0]
			lo, hi := chain([]byte(board), mv.At, c)
			st.Cleared = Cleared{Inserted: board[:mv.At] + mv.Ball + board[mv.At:], At: mv.At, From: lo, To: hi}
		}
		board = o.Board
		out = append(out, st)
	}
	return out, nil
}

// view is the position after the moves played: the board, and the hand
// or ammo left.
func view(lvl *Level, played []Move, board string) StateView {
	v := StateView{Mode: lvl.Mode, Board: board}
	switch lvl.Mode {
	case ModeHand:
		left := []byte(lvl.Hand)
		for _, mv := range played {
			if i := strings.IndexByte(string(left), mv.Ball[0]); i >= 0 {
				left = append(left[:i], left[i+1:]...)
			}
		}
		sort.Slice(left, func(i, j int) bool { return left[i] < left[j] })
		v.Hand = string(left)
	case ModeAmmo:
		v.Ammo = lvl.Ammo[len(played):]
	}
	return v
}

// stateText is the canonical text: "zuma <k>", then "board <balls>" and,
// by mode, "hand <sorted balls>" or "ammo <balls in order>"; an empty list
// is "-".
func stateText(v StateView, k int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "zuma %d\nboard %s", k, dash(v.Board))
	switch v.Mode {
	case ModeHand:
		fmt.Fprintf(&b, "\nhand %s", dash(v.Hand))
	case ModeAmmo:
		fmt.Fprintf(&b, "\nammo %s", dash(v.Ammo))
	}
	return b.String()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// States implements solver.Stepper.
func (kind) States(lvl solver.Level, plan json.RawMessage) ([]solver.State, error) {
	l, ok := lvl.(*Level)
	if !ok {
		return nil, fmt.Errorf("zuma: level of kind %q", lvl.Kind())
	}
	var moves []Move
	if len(plan) > 0 {
		var err error
		if moves, err = DecodePlan(plan); err != nil {
			return nil, err
		}
	}
	return States(l, moves)
}
