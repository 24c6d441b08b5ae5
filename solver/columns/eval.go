package columns

// evaluator scores beam positions: points so far, near-matches (adjacent
// equal jewels in a row, column or diagonal), stack height with a steep
// penalty near the top, and the goal's distance (jewels left for clear,
// jewels above the target and its same-colored neighbours for target).
type evaluator struct {
	g                         *geom
	goal                      string
	wScore, wPairs, wSum, wHi int64
}

func newEvaluator(l *Level) evaluator {
	e := evaluator{g: &l.geom, goal: l.Goal.Type, wScore: 20, wPairs: 8, wSum: 2, wHi: 300}
	switch l.Goal.Type {
	case GoalScore:
		e.wScore = 60
	case GoalClear:
		e.wSum = 30
	case GoalSurvive:
		e.wScore, e.wPairs, e.wSum, e.wHi = 2, 4, 10, 3000
	}
	return e
}

func (e *evaluator) eval(b *board, score int64, t target) int64 {
	g := e.g
	var sum, pairs, danger int64
	safe := g.h - 6
	for c := 0; c < g.w; c++ {
		h := int(b.h[c])
		sum += int64(h)
		if over := int64(h - safe); over > 0 {
			danger += over * over
		}
		base := c * stride
		for r := 0; r < h; r++ {
			v := b.cells[base+r]
			if r+1 < h && b.cells[base+r+1] == v {
				pairs++
			}
			if c+1 == g.w {
				continue
			}
			nb := base + stride + r
			if b.cells[nb] == v {
				pairs++
			}
			if r+1 < g.h && b.cells[nb+1] == v {
				pairs++
			}
			if r > 0 && b.cells[nb-1] == v {
				pairs++
			}
		}
	}
	v := e.wScore*score + e.wPairs*pairs - e.wSum*sum - e.wHi*danger
	if e.goal == GoalTarget && t.r >= 0 {
		v += e.targetTerm(b, t)
	}
	return v
}

// targetTerm rewards a target with few jewels above it and many equal
// jewels around it.
func (e *evaluator) targetTerm(b *board, t target) int64 {
	g := e.g
	tc, tr := int(t.c), int(t.r)
	above := int64(int(b.h[tc]) - tr - 1)
	v := b.cells[tc*stride+tr]
	var near int64
	for c := max(tc-1, 0); c <= min(tc+1, g.w-1); c++ {
		for r := max(tr-1, 0); r <= min(tr+1, g.h-1); r++ {
			if (c != tc || r != tr) && b.cells[c*stride+r] == v {
				near++
			}
		}
	}
	return -40*above + 25*near
}
