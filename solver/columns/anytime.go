package columns

import (
	"github.com/puzzled/puzzled/solver"
)

// anytime runs the beam search in rounds: each width (BeamWidth,
// 2·BeamWidth, … up to MaxBeamWidth) is played twice, with the tuned
// weights and then with the restart weights, until a round reaches a
// clear, target or score goal, the last round is done or the budget runs
// out.
// A survive level plays every round and keeps the best-scoring surviving
// line. The rounds are a fixed schedule, so a node budget and resumes give
// the same result as a straight run; a time budget simply cuts the
// schedule where it runs out, and the best plan found so far is returned.
type anytime struct {
	l   *Level
	m   *solver.Meter
	cfg Config

	round int   // current round
	bm    *beam // current round's beam

	// Across the finished rounds:
	best     int64   // best score on any line
	bestLine []uint8 // a line that scores best
	found    bool    // a round reached the goal (survive: placed every piece)
	goal     int64   // score of goalLine
	goalLine []uint8 // the plan that reaches the goal
}

func newAnytime(l *Level, m *solver.Meter, cfg Config) *anytime {
	a := &anytime{l: l, m: m, cfg: cfg, best: -1}
	a.bm = a.newRound()
	return a
}

// perWidth is the number of rounds per width: two (tuned, then restart
// weights) unless the evaluation is classic or there is a single width.
func (a *anytime) perWidth() int {
	if a.cfg.Eval == EvalClassic || a.cfg.BeamWidth == a.cfg.MaxBeamWidth {
		return 1
	}
	return 2
}

// width is the beam width of round r.
func (a *anytime) width(r int) int {
	w := a.cfg.BeamWidth
	for r /= a.perWidth(); r > 0 && w < a.cfg.MaxBeamWidth; r-- {
		w *= 2
	}
	return min(w, a.cfg.MaxBeamWidth)
}

// last reports whether round r is the schedule's last.
func (a *anytime) last(r int) bool {
	return a.width(r) >= a.cfg.MaxBeamWidth && r%a.perWidth() == a.perWidth()-1
}

func (a *anytime) newRound() *beam {
	restart := a.round%a.perWidth() == 1
	return newBeam(a.l, a.m, a.width(a.round), newEvaluator(a.l, a.cfg.Eval, restart))
}

// run plays the rounds; it reports whether the meter stopped it.
func (a *anytime) run() bool {
	for {
		if a.bm.run(a.save) {
			return true
		}
		a.merge(a.bm)
		if a.found && a.l.Goal.Type != GoalSurvive || a.last(a.round) {
			return false
		}
		a.round++
		a.bm = a.newRound()
	}
}

// merge takes a round's best line and goal line where they beat the
// earlier rounds' (ties keep the earlier one).
func (a *anytime) merge(bm *beam) {
	if bm.best > a.best {
		a.best, a.bestLine = bm.best, bm.bestLine
	}
	if !bm.found {
		return
	}
	s := lineScore(a.l, bm.goalLine)
	if !a.found || s > a.goal {
		a.found, a.goal, a.goalLine = true, s, bm.goalLine
	}
}

func (a *anytime) save() { a.m.Checkpoint(a.encode()) }

// result is the outcome after run: the best goal line, else the best line;
// the current (unfinished) round counts too.
func (a *anytime) result() (plan []uint8, found bool, best int64) {
	a.merge(a.bm)
	if a.found {
		return a.goalLine, true, max(a.best, 0)
	}
	return a.bestLine, false, max(a.best, 0)
}

// lineScore replays a line the search produced (it always fits).
func lineScore(l *Level, line []uint8) int64 {
	var b board
	l.geom.copyFrom(&b, &l.start)
	t := l.initialTarget()
	var s int64
	for i, mv := range line {
		gain, _ := l.geom.place(&b, int(mv)/3, int(mv)%3, &l.pieces[i], &t)
		s += int64(gain)
	}
	return s
}
