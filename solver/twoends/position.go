package twoends

import (
	"encoding/json"
	"fmt"

	"github.com/puzzled/puzzled/solver"
)

// Position implements solver.Positioner. The moves are "L" and "R"; the
// position's level is the row left, solved for whoever moves next: Value
// is first minus second so far and Sign is +1 when the first player moves
// next, -1 when the second does, so Value + Sign × (the row's value) is
// the final margin under best play from here. A twoends game has no goal.
func (kind) Position(lvl solver.Level, plan json.RawMessage) (solver.Position, error) {
	l, ok := lvl.(*Level)
	if !ok {
		return solver.Position{}, ErrLevel
	}
	var line string
	if len(plan) > 0 {
		if err := json.Unmarshal(plan, &line); err != nil {
			return solver.Position{}, fmt.Errorf("twoends: plan is not a JSON string: %w", err)
		}
	}
	a := l.values
	if len(line) > len(a) {
		return solver.Position{}, fmt.Errorf("twoends: line has %d moves for %d values", len(line), len(a))
	}
	left, right := 0, len(a)-1
	var margin int64
	for k := 0; k < len(line); k++ {
		var v int64
		switch line[k] {
		case 'L':
			v, left = a[left], left+1
		case 'R':
			v, right = a[right], right-1
		default:
			return solver.Position{}, fmt.Errorf("twoends: move %d is %q, want 'L' or 'R'", k, line[k])
		}
		if k%2 == 0 {
			margin += v
		} else {
			margin -= v
		}
	}
	p := solver.Position{Value: margin, Sign: 1, Scored: true}
	if len(line)%2 == 1 {
		p.Sign = -1
	}
	if left > right {
		p.Over = true
		return p, nil
	}
	p.Moves = []json.RawMessage{json.RawMessage(`"L"`), json.RawMessage(`"R"`)}
	var err error
	if p.Level, err = NewLevel(append([]int64(nil), a[left:right+1]...)); err != nil {
		return p, fmt.Errorf("twoends: position: %w", err)
	}
	return p, nil
}
