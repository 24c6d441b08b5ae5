package twoends

import (
	"encoding/json"
	"fmt"
)

// Replay plays plan (a JSON string of "L"/"R" letters, one per move, first
// player first) on the level and returns both players' totals.
func Replay(l *Level, plan json.RawMessage) (first, second int64, err error) {
	var line string
	if err := json.Unmarshal(plan, &line); err != nil {
		return 0, 0, fmt.Errorf("twoends: plan is not a JSON string: %w", err)
	}
	return replayLine(l.values, line, len(l.values))
}

// replayLine plays the first moves of line; it must have exactly want moves.
func replayLine(a []int64, line string, want int) (first, second int64, err error) {
	if len(line) != want {
		return 0, 0, fmt.Errorf("twoends: line has %d moves, want %d", len(line), want)
	}
	var totals [2]int64
	i, j := 0, len(a)-1
	for k := 0; k < len(line); k++ {
		switch line[k] {
		case 'L':
			totals[k%2] += a[i]
			i++
		case 'R':
			totals[k%2] += a[j]
			j--
		default:
			return 0, 0, fmt.Errorf("twoends: move %d is %q, want 'L' or 'R'", k, line[k])
		}
	}
	return totals[0], totals[1], nil
}
