package difficulty

import (
	"context"
	"errors"
	"fmt"
	"sort"
)

// errNodes stops the exact search when its node budget is spent.
var errNodes = errors.New("difficulty: exact search over its node budget")

// exact is a plain memoised search over a [Game], independent of the
// kind's own solver (whose pruning answers "is there a win", not "how many
// moves win"). It runs in two stages on one node budget: winnable (stops
// at the first win below each position) for the shares along the first
// winning line, then lines (visits every winnable position) for the
// lengths of all distinct winning lines.
type exact struct {
	ctx      context.Context
	g        Game
	nodes    int64
	maxNodes int64
	key      []byte
	win      map[string]bool
	hist     map[string][]float64
	firstWin int64 // nodes when the first won position was reached, 0 before
	depth    int
	bufs     [][]int // move lists by depth, reused
}

// moves returns the legal moves of the current position in the buffer
// of the current depth; callers hold it until they return.
func (e *exact) moves() []int {
	for len(e.bufs) <= e.depth {
		e.bufs = append(e.bufs, nil)
	}
	e.bufs[e.depth] = e.g.Moves(e.bufs[e.depth][:0])
	return e.bufs[e.depth]
}

// play and undo move down and up the tree, keeping depth.
func (e *exact) play(m int) { e.g.Play(m); e.depth++ }
func (e *exact) undo()      { e.g.Undo(); e.depth-- }

// lookupKey sets e.key to the current position's key; map lookups with
// string(e.key) do not allocate, only inserts do.
func (e *exact) lookupKey() {
	e.key = e.g.Key(e.key[:0])
}

func newExact(ctx context.Context, g Game, maxNodes int64) *exact {
	return &exact{ctx: ctx, g: g, maxNodes: maxNodes, win: map[string]bool{}, hist: map[string][]float64{}}
}

// tick counts a node and reports why the search must stop, if it must.
func (e *exact) tick() error {
	e.nodes++
	if e.nodes > e.maxNodes {
		return errNodes
	}
	if e.nodes&1023 == 0 {
		if err := e.ctx.Err(); err != nil {
			return fmt.Errorf("difficulty: exact search: %w", err)
		}
	}
	return nil
}

// winnable reports whether some sequence of moves from the current
// position wins. Results are memoised by position key.
func (e *exact) winnable() (bool, error) {
	switch e.g.Status() {
	case Won:
		if e.firstWin == 0 {
			e.firstWin = e.nodes
		}
		return true, nil
	case Lost:
		return false, nil
	}
	e.lookupKey()
	if w, ok := e.win[string(e.key)]; ok {
		return w, nil
	}
	k := string(e.key)
	if d, ok := e.g.(Decider); ok {
		return e.decide(d, k)
	}
	if err := e.tick(); err != nil {
		return false, err
	}
	res := false
	for _, m := range e.moves() {
		e.play(m)
		w, err := e.winnable()
		e.undo()
		if err != nil {
			return false, err
		}
		if w {
			res = true
			break
		}
	}
	e.win[k] = res
	return res, nil
}

// decide asks the kind's solver about the current position, whose key is
// k, and charges its nodes to the budget.
func (e *exact) decide(d Decider, k string) (bool, error) {
	if err := e.tick(); err != nil {
		return false, err
	}
	win, nodes, ok := d.Decide(e.ctx, e.maxNodes-e.nodes)
	e.nodes += nodes
	if err := e.ctx.Err(); err != nil {
		return false, fmt.Errorf("difficulty: exact search: %w", err)
	}
	if !ok || e.nodes > e.maxNodes {
		return false, errNodes
	}
	if win && e.firstWin == 0 {
		e.firstWin = e.nodes
	}
	e.win[k] = win
	return win, nil
}

// shares walks the first winning line for up to k decisions and returns,
// at each, how many legal moves keep a win. The game is left where it was.
func (e *exact) shares(k int) ([]Share, error) {
	var out []Share
	played := 0
	defer func() {
		for ; played > 0; played-- {
			e.undo()
		}
	}()
	for len(out) < k && e.g.Status() == Playing {
		moves := e.g.Moves(nil)
		winning, next := 0, -1
		for _, m := range moves {
			e.play(m)
			w, err := e.winnable()
			e.undo()
			if err != nil {
				return nil, err
			}
			if w {
				winning++
				if next < 0 {
					next = m
				}
			}
		}
		out = append(out, newShare(winning, len(moves)))
		if next < 0 {
			break
		}
		e.play(next)
		played++
	}
	return out, nil
}

// lines returns hist with hist[l] the number of distinct winning move
// sequences of length l from the current position (nil if none). Losing
// positions are known from winnable's memo or found here.
func (e *exact) lines() ([]float64, error) {
	switch e.g.Status() {
	case Won:
		return []float64{1}, nil
	case Lost:
		return nil, nil
	}
	e.lookupKey()
	if h, ok := e.hist[string(e.key)]; ok {
		return h, nil
	}
	k := string(e.key)
	// Dead subtrees are cut first: winnable is memoised (or decided by
	// the kind's solver), so this costs little and skips their lines.
	if w, err := e.winnable(); err != nil || !w {
		return nil, err
	}
	if err := e.tick(); err != nil {
		return nil, err
	}
	var h []float64
	for _, m := range e.moves() {
		e.play(m)
		c, err := e.lines()
		e.undo()
		if err != nil {
			return nil, err
		}
		for l, n := range c {
			for len(h) <= l+1 {
				h = append(h, 0)
			}
			h[l+1] += n
		}
	}
	e.hist[k] = h
	return h, nil
}

// shortestAndMedian reads the shortest length and the median length (of
// all lines, each counted once) from a histogram with at least one line.
func shortestAndMedian(h []float64) (int, float64) {
	shortest := sort.Search(len(h), func(i int) bool { return h[i] > 0 })
	total := 0.0
	for _, n := range h {
		total += n
	}
	lo := lengthAt(h, (total-1)/2)
	hi := lengthAt(h, total/2)
	return shortest, float64(lo+hi) / 2
}

// lengthAt is the length of the line at 0-based rank r (floored) in
// length order.
func lengthAt(h []float64, r float64) int {
	seen := 0.0
	for l, n := range h {
		seen += n
		if seen > float64(int64(r)) {
			return l
		}
	}
	return len(h) - 1
}
