package columns

import "math/bits"

// weights are the coefficients of the beam's evaluation. A position's
// value is
//
//	score·points + threat·threats + pair·pairs − jewels·jewels
//	− danger·Σ(height over safe)² − dead·dead columns − bump·bumpiness
//
// plus the target term for target goals. With a horizon, the potential
// terms (threats and pairs) fade over the last horizon pieces: potential
// left on the board when the pieces run out is worth nothing. The terms
// are what a player
// looks at: points banked, matches one jewel short with room to finish
// them ("threats"), equal neighbours that can grow into matches, how full
// the well is, columns that can no longer take a piece and how ragged the
// surface is.
type weights struct {
	score, threat, pair, jewels, danger, dead, bump int64
	horizon                                         int64 // 0: no fading
	chain                                           int64 // chainPotential
}

// Evaluation sets (Config.Eval).
const (
	// EvalTuned is the default evaluation with the threat, dead-column and
	// bumpiness terms.
	EvalTuned = "tuned"
	// EvalClassic is the evaluation of solver version columns/1 (points,
	// adjacent pairs, jewel count, height danger), kept as the benchmark
	// baseline.
	EvalClassic = "classic"
)

// classicWeights are columns/1's weights per goal.
func classicWeights(goal string) weights {
	w := weights{score: 20, pair: 8, jewels: 2, danger: 300}
	switch goal {
	case GoalScore:
		w.score = 60
	case GoalClear:
		w.jewels = 30
	case GoalSurvive:
		w = weights{score: 2, pair: 4, jewels: 10, danger: 3000}
	}
	return w
}

// tunedWeights are the default weights per goal, tuned on generated levels
// (tuning seeds in eval_tune_test.go, kept apart from the benchmark's).
func tunedWeights(goal string) weights {
	switch goal {
	case GoalClear:
		return weights{score: 20, threat: 24, pair: 6, jewels: 40, danger: 300, dead: 400, bump: 3}
	case GoalTarget:
		return weights{score: 20, threat: 10, pair: 6, jewels: 2, danger: 300, dead: 400, bump: 3}
	default: // score, survive: points and potential
		return weights{score: 30, threat: 25, pair: 64, jewels: 2, danger: 600, dead: 800, bump: 4, horizon: 4, chain: 40}
	}
}

// restartWeights are the second set the anytime search alternates with
// tunedWeights: a different, about as strong, view of the level, so a
// round that misses with one set may hit with the other. For clear and
// target goals it is columns/1's set (a level it solved is tried with it
// again); for score and survive it values potential more and points less.
func restartWeights(goal string) weights {
	switch goal {
	case GoalClear, GoalTarget:
		return classicWeights(goal)
	default:
		return weights{score: 20, threat: 50, pair: 64, jewels: -4, danger: 600, dead: 800, bump: 4, horizon: 4, chain: 20}
	}
}

// evaluator scores beam positions with one set of weights.
type evaluator struct {
	g    *geom
	goal string
	w    weights
}

// newEvaluator returns the evaluator of set; restart picks the tuned
// set's alternative.
func newEvaluator(l *Level, set string, restart bool) evaluator {
	w := tunedWeights(l.Goal.Type)
	switch {
	case set == EvalClassic:
		w = classicWeights(l.Goal.Type)
	case restart:
		w = restartWeights(l.Goal.Type)
	}
	return evaluator{g: &l.geom, goal: l.Goal.Type, w: w}
}

// eval values a position with left pieces still to come.
func (e *evaluator) eval(b *board, score int64, t target, left int) int64 {
	g := e.g
	var sum, danger, dead, bump int64
	safe := g.h - 6
	for c := 0; c < g.w; c++ {
		h := int(b.h[c])
		sum += int64(h)
		if over := int64(h - safe); over > 0 {
			danger += over * over
		}
		if h+3 > g.h {
			dead++
		}
		if c > 0 {
			bump += int64(abs(h - int(b.h[c-1])))
		}
	}
	pairs, paired := e.pairs(b)
	potential := e.w.pair * pairs
	if e.w.threat != 0 {
		potential += e.w.threat * e.threats(b, &paired)
	}
	if e.w.chain != 0 {
		potential += e.w.chain * e.chainPotential(b, &paired)
	}
	if h := e.w.horizon; h > 0 && int64(left) < h {
		potential = potential * int64(left) / h
	}
	v := e.w.score*score + potential - e.w.jewels*sum - e.w.danger*danger -
		e.w.dead*dead - e.w.bump*bump
	if e.goal == GoalTarget && t.r >= 0 {
		v += e.targetTerm(b, t)
	}
	return v
}

// pairs counts adjacent equal jewels (column, row and both diagonals) and
// marks the jewels that have an equal neighbour.
func (e *evaluator) pairs(b *board) (int64, cellMask) {
	g := e.g
	var n int64
	var paired cellMask
	for c := 0; c < g.w; c++ {
		base := c * stride
		h := int(b.h[c])
		for r := 0; r < h; r++ {
			v := b.cells[base+r]
			if r+1 < h && b.cells[base+r+1] == v {
				n++
				paired[c] |= 3 << uint(r)
			}
			if c+1 == g.w {
				continue
			}
			nb := base + stride + r
			for dr := -1; dr <= 1; dr++ {
				if r+dr >= 0 && r+dr < g.h && b.cells[nb+dr] == v {
					n++
					paired[c] |= 1 << uint(r)
					paired[c+1] |= 1 << uint(r+dr)
				}
			}
		}
	}
	return n, paired
}

// threats counts, over the empty cells the next piece can reach (the three
// cells above each column that can still take a piece), the colors that
// would complete a match there: a match one jewel short with room to
// finish it, including lines with a one-cell gap.
func (e *evaluator) threats(b *board, paired *cellMask) int64 {
	g := e.g
	var n int64
	for c := 0; c < g.w; c++ {
		h := int(b.h[c])
		if h+3 > g.h {
			continue
		}
		for r := h; r < h+3; r++ {
			var m uint32
			if g.groups {
				m = e.groupThreats(b, paired, c, r)
			} else {
				m = e.lineThreats(b, c, r)
			}
			n += int64(bits.OnesCount32(m))
		}
	}
	return n
}

// at is the jewel at (c, r), 0 when empty or outside the board.
func (e *evaluator) at(b *board, c, r int) byte {
	if c < 0 || c >= e.g.w || r < 0 || r >= e.g.h {
		return 0
	}
	return b.cells[c*stride+r]
}

// lineThreats is the set of colors (bit v) that complete a line of 3
// through the empty cell (c, r).
func (e *evaluator) lineThreats(b *board, c, r int) uint32 {
	var m uint32
	for _, d := range lineDirs {
		lo := e.at(b, c-d[0], r-d[1])
		hi := e.at(b, c+d[0], r+d[1])
		if lo != 0 && lo == hi {
			m |= 1 << lo
			continue
		}
		if lo != 0 && e.at(b, c-2*d[0], r-2*d[1]) == lo {
			m |= 1 << lo
		}
		if hi != 0 && e.at(b, c+2*d[0], r+2*d[1]) == hi {
			m |= 1 << hi
		}
	}
	return m
}

// groupThreats is the set of colors that complete an 8-connected group of
// 3 at the empty cell (c, r): two neighbours of the color, or one that
// already has an equal neighbour.
func (e *evaluator) groupThreats(b *board, paired *cellMask, c, r int) uint32 {
	var once, m uint32
	for dc := -1; dc <= 1; dc++ {
		for dr := -1; dr <= 1; dr++ {
			v := e.at(b, c+dc, r+dr)
			if v == 0 {
				continue
			}
			if once>>v&1 != 0 || paired[c+dc]>>uint(r+dr)&1 != 0 {
				m |= 1 << v
			}
			once |= 1 << v
		}
	}
	return m
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

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
