package sheep

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/puzzled/puzzled/solver"
)

// Explain implements solver.Explainer: why a level cannot be cleared, or
// how far a search that ran out of budget got, in a designer's words.
func (kind) Explain(lvl solver.Level, res solver.Result, budget solver.Budget) solver.Explanation {
	l, err := asLevel(lvl)
	if err != nil {
		return solver.Explanation{Summary: err.Error()}
	}
	var plan []string
	_ = json.Unmarshal(res.Plan, &plan)
	cleared, _ := solver.DetailInt(res.Details["cleared"])
	best := fmt.Sprintf("The best line found clears %d of %d tiles in %d clicks.", cleared, len(l.tiles), len(plan))
	step := len(plan)
	switch {
	case res.Verdict == solver.Unknown:
		return solver.Explanation{
			Summary: fmt.Sprintf("Not decided: the search stopped at its budget (%s) before it found a line that clears every tile or a proof that none does.",
				solver.BudgetText(budget, res.Stats)),
			Facts: []string{best, "Solve again with more time to know."},
			Step:  &step,
		}
	case res.Verdict != solver.Unsolvable:
		return solver.Explanation{Summary: "Every tile can be cleared."}
	case res.Proof == "precheck:type-count":
		return typeCountExplanation(l)
	case res.Proof == "precheck:slots":
		return solver.Explanation{Summary: fmt.Sprintf(
			"The tray has %d slot(s): three tiles of a type can never meet in it, so the tray fills before anything vanishes.", l.slots)}
	}
	e := solver.Explanation{Step: &step}
	switch name, arg, _ := strings.Cut(res.Proof, ":"); name {
	case "exhaustive":
		e.Summary = fmt.Sprintf("No order of clicks clears the level: every line fills the tray (the search proved it in %d node%s).", res.Stats.Nodes, plural(int(res.Stats.Nodes)))
	case "projection":
		types := strings.TrimPrefix(arg, "types=")
		e.Summary = fmt.Sprintf("The tiles of type%s %s cannot be cleared even on their own: keeping only them, with what covers what, every order of clicks was tried and each one fills the tray.",
			plural(strings.Count(types, ",")+1), typeNames(types))
		e.Marks = tilesOfTypes(l, types)
	case "retrograde":
		left := strings.TrimPrefix(arg, "left=")
		e.Summary = fmt.Sprintf("Working backwards from the cleared board, no position with %s tiles left can still be cleared — and every line passes through such a position.", left)
	default:
		e.Summary = "Proven unsolvable (" + res.Proof + ")."
	}
	e.Facts = append(e.Facts, best)
	if line, ok := longestLine(l, 50_000); ok {
		e.Facts = append(e.Facts, fmt.Sprintf("Whatever you click, the tray is full by click %d at the latest: the longest line survives %d clicks.", len(line)+1, len(line)))
		if len(line) > 0 {
			e.Line, _ = json.Marshal(line)
		}
	}
	return e
}

// typeCountExplanation names the types whose count is not a multiple of 3.
func typeCountExplanation(l *Level) solver.Explanation {
	counts := map[int]int{}
	for _, t := range l.tiles {
		counts[t.Type]++
	}
	e := solver.Explanation{Counts: map[string]int{}}
	var off []string
	for _, v := range l.types {
		if n := counts[v]; n%3 != 0 {
			e.Counts[strconv.Itoa(v)] = n
			off = append(off, fmt.Sprintf("type %d (%s) has %d", v, letter(v), n))
			for _, t := range l.tiles {
				if t.Type == v {
					e.Marks = append(e.Marks, t.ID)
				}
			}
		}
	}
	e.Summary = "Tiles vanish in threes, so every type needs a multiple of 3 tiles: " + strings.Join(off, ", ") + "."
	return e
}

// longestLine finds a longest line of clicks that never fills the tray,
// by a search over the sets of clicked tiles (the tray follows from them),
// visiting at most limit sets; false when the limit was reached.
func longestLine(l *Level, limit int) ([]string, bool) {
	n := len(l.tiles)
	memo := map[string]int{} // clicked set → most clicks survivable from it
	gone := make([]bool, n)
	cov := append([]int32(nil), l.above...)
	tray := make([]int, len(l.types))
	size := 0
	key := func() string {
		b := make([]byte, (n+7)/8)
		for i, g := range gone {
			if g {
				b[i/8] |= 1 << (i % 8)
			}
		}
		return string(b)
	}
	var walk func() (int, bool)
	walk = func() (int, bool) {
		k := key()
		if v, ok := memo[k]; ok {
			return v, true
		}
		if len(memo) >= limit {
			return 0, false
		}
		bestN := 0
		for i := range n {
			if gone[i] || cov[i] > 0 {
				continue
			}
			t := l.typ[i]
			tray[t]++
			size++
			vanished := tray[t] == 3
			if vanished {
				tray[t], size = 0, size-3
			}
			if size < l.slots {
				gone[i] = true
				for _, c := range l.below[i] {
					cov[c]--
				}
				v, ok := walk()
				for _, c := range l.below[i] {
					cov[c]++
				}
				gone[i] = false
				if !ok {
					return 0, false
				}
				bestN = max(bestN, v+1)
			}
			if vanished {
				tray[t], size = 3, size+3
			}
			tray[t]--
			size--
		}
		memo[k] = bestN
		return bestN, true
	}
	total, ok := walk()
	if !ok {
		return nil, false
	}
	// Follow the memo from the start to write one longest line.
	var line []string
	for len(line) < total {
		want := total - len(line) - 1
		for i := range n {
			if gone[i] || cov[i] > 0 {
				continue
			}
			t := l.typ[i]
			nextTray := tray[t] + 1
			nextSize := size + 1
			if nextTray == 3 {
				nextTray, nextSize = 0, nextSize-3
			}
			if nextSize >= l.slots {
				continue
			}
			gone[i] = true
			if memo[key()] == want {
				tray[t], size = nextTray, nextSize
				for _, c := range l.below[i] {
					cov[c]--
				}
				line = append(line, l.tiles[i].ID)
				break
			}
			gone[i] = false
		}
	}
	return line, true
}

// tilesOfTypes lists the ids of the tiles whose type is in the
// comma-separated list of type values.
func tilesOfTypes(l *Level, list string) []string {
	want := map[int]bool{}
	for _, s := range strings.Split(list, ",") {
		if v, err := strconv.Atoi(s); err == nil {
			want[v] = true
		}
	}
	var ids []string
	for _, t := range l.tiles {
		if want[t.Type] {
			ids = append(ids, t.ID)
		}
	}
	sort.Strings(ids)
	return ids
}

// typeNames writes "2 (B), 5 (E)" for the list "2,5".
func typeNames(list string) string {
	var out []string
	for _, s := range strings.Split(list, ",") {
		v, err := strconv.Atoi(s)
		if err != nil {
			out = append(out, s)
			continue
		}
		out = append(out, fmt.Sprintf("%d (%s)", v, letter(v)))
	}
	return strings.Join(out, ", ")
}

// letter is how the pages name a tile type: 1 = A, …, 26 = Z, 27 = A1.
func letter(v int) string {
	i := ((v-1)%26 + 26) % 26
	round := (v - 1) / 26
	if v-1 < 0 {
		round = -1
	}
	s := string(rune('A' + i))
	if round > 0 {
		s += strconv.Itoa(round)
	}
	return s
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
