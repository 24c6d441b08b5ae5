package sheep

import "fmt"

// Outcome is the end state of a replayed click sequence.
type Outcome struct {
	Clicks  int  // clicks played
	Cleared int  // tiles that vanished
	Tray    int  // tiles left in the tray
	Won     bool // every tile is gone
	Lost    bool // the last click filled the tray
}

// Replay plays plan (tile ids in click order) from the start of lvl. It
// fails on an unknown id, a tile clicked twice or still covered, and any
// click after the game was lost.
func Replay(l *Level, plan []string) (Outcome, error) {
	idx := make([]int32, len(plan))
	for k, id := range plan {
		i, ok := l.index[id]
		if !ok {
			return Outcome{}, fmt.Errorf("sheep: plan[%d]: unknown tile %q", k, id)
		}
		idx[k] = i
	}
	return replay(l, idx)
}

func replay(l *Level, plan []int32) (Outcome, error) {
	var o Outcome
	cov := append([]int32(nil), l.above...)
	gone := make([]bool, len(l.tiles))
	tray := make([]int, len(l.types))
	for k, i := range plan {
		id := l.tiles[i].ID
		switch {
		case o.Lost:
			return o, fmt.Errorf("sheep: plan[%d]: click on %q after the game was lost", k, id)
		case gone[i]:
			return o, fmt.Errorf("sheep: plan[%d]: tile %q was already clicked", k, id)
		case cov[i] > 0:
			return o, fmt.Errorf("sheep: plan[%d]: tile %q is covered by %d tile(s)", k, id, cov[i])
		}
		gone[i] = true
		for _, c := range l.below[i] {
			cov[c]--
		}
		o.Clicks++
		t := l.typ[i]
		tray[t]++
		o.Tray++
		if tray[t] == 3 {
			tray[t] = 0
			o.Tray -= 3
			o.Cleared += 3
		}
		o.Lost = o.Tray >= l.slots
	}
	o.Won = !o.Lost && o.Cleared == len(l.tiles)
	return o, nil
}

// replayIdx checks that line is a legal, never-losing line and returns
// the tiles it clears.
func replayIdx(l *Level, line []int32) (int, bool) {
	o, err := replay(l, line)
	if err != nil || o.Lost {
		return 0, false
	}
	return o.Cleared, true
}
