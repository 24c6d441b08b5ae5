package twoends

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/puzzled/puzzled/solver"
)

// MaxStateValues is the longest row States shows: every state's text
// repeats the row, so the texts of a whole line grow with its square.
const MaxStateValues = 2000

// ErrRowTooLong is returned by States above MaxStateValues; it is a
// solver.ErrTooManyStates.
var ErrRowTooLong error = rowTooLong{}

type rowTooLong struct{}

func (rowTooLong) Error() string        { return "twoends: row too long to list every state" }
func (rowTooLong) Is(target error) bool { return target == solver.ErrTooManyStates }

// StateView is a twoends position for drawing: the whole row, the
// remaining interval [Left, Right] (Left > Right once all are taken), both
// players' sums and who moves next.
type StateView struct {
	Values []int64 `json:"values"`
	Left   int     `json:"left"`
	Right  int     `json:"right"`
	First  int64   `json:"first"`
	Second int64   `json:"second"`
	Turn   string  `json:"turn"` // "first", "second", or "" when over
}

// Cleared is what one move took: the side, the index in the row, the
// value and who took it.
type Cleared struct {
	Side  string `json:"side"`
	Index int    `json:"index"`
	Value int64  `json:"value"`
	By    string `json:"by"`
}

// States lists the state after each move of line, a legal prefix of a
// line of play (docs/states.md). The totals of the last state are checked
// against the simulator's replayLine.
func States(l *Level, line string) ([]solver.State, error) {
	a := l.values
	if len(a) > MaxStateValues {
		return nil, fmt.Errorf("%w: %d values, at most %d", ErrRowTooLong, len(a), MaxStateValues)
	}
	if len(line) > len(a) {
		return nil, fmt.Errorf("twoends: line has %d moves for %d values", len(line), len(a))
	}
	v := StateView{Values: a, Left: 0, Right: len(a) - 1, Turn: player(0, len(a))}
	out := []solver.State{{Step: 0, View: v, Text: stateText(v, 0)}}
	for k := 0; k < len(line); k++ {
		c := Cleared{Side: string(line[k]), By: player(k, len(a))}
		switch line[k] {
		case 'L':
			c.Index = v.Left
			v.Left++
		case 'R':
			c.Index = v.Right
			v.Right--
		default:
			return nil, fmt.Errorf("twoends: move %d is %q, want 'L' or 'R'", k, line[k])
		}
		c.Value = a[c.Index]
		if k%2 == 0 {
			v.First += c.Value
		} else {
			v.Second += c.Value
		}
		v.Turn = player(k+1, len(a))
		mv, _ := json.Marshal(c.Side)
		out = append(out, solver.State{Step: k + 1, Move: mv, View: v, Text: stateText(v, k+1), Cleared: c})
	}
	first, second, err := replayLine(a, line, len(line))
	if err != nil {
		return nil, err
	}
	if first != v.First || second != v.Second {
		return nil, fmt.Errorf("twoends: states disagree with the simulator")
	}
	return out, nil
}

// player names who makes move k of n ("" once every value is taken).
func player(k, n int) string {
	switch {
	case k >= n:
		return ""
	case k%2 == 0:
		return "first"
	}
	return "second"
}

// stateText is the canonical text: "twoends <k>", "row" with the values
// left ("-" when none), "first <sum>", "second <sum>" and "turn first",
// "turn second" or "turn -" when the row is empty.
func stateText(v StateView, k int) string {
	row := make([]string, 0, max(v.Right-v.Left+1, 0))
	for i := v.Left; i <= v.Right; i++ {
		row = append(row, strconv.FormatInt(v.Values[i], 10))
	}
	rowText, turn := "-", "-"
	if len(row) > 0 {
		rowText = strings.Join(row, " ")
	}
	if v.Turn != "" {
		turn = v.Turn
	}
	return fmt.Sprintf("twoends %d\nrow %s\nfirst %d\nsecond %d\nturn %s", k, rowText, v.First, v.Second, turn)
}

// States implements solver.Stepper.
func (kind) States(lvl solver.Level, plan json.RawMessage) ([]solver.State, error) {
	l, ok := lvl.(*Level)
	if !ok {
		return nil, ErrLevel
	}
	var line string
	if len(plan) > 0 {
		if err := json.Unmarshal(plan, &line); err != nil {
			return nil, fmt.Errorf("twoends: plan is not a JSON string: %w", err)
		}
	}
	return States(l, line)
}
