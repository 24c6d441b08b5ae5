package difficulty

import "math"

// Weights of the playout score, the score of figures without a ladder
// (docs/difficulty.md explains the choice).
const (
	weightRandom = 0.4
	weightGreedy = 0.4
	weightFirst  = 0.2
	// rateFloor is the win rate that counts as "never" (and 1 − rateFloor
	// as "always"): 1 in 1,000, the resolution of the default playouts.
	rateFloor = 1e-3
)

// Score is the 1–10 difficulty of a solvable level. With a ladder it is
// the ladder's position scaled to 1–10 ([LadderScore]); without one, the
// playout score ([PlayoutScore]). Nil when there is no figure at all.
func Score(f Figures) *int {
	if f.Ladder != nil {
		s := LadderScore(f.Ladder.Position, f.Ladder.Top)
		return &s
	}
	return PlayoutScore(f)
}

// LadderScore maps a ladder position x (0 to top+½ for a ladder whose
// last rung is top; top+½ is the highest position a complete ladder
// gives) to 1–10:
//
//	score = 1 + round(9 · clamp(x − 1, 0, top − ½) / (top − ½))
//
// Score 1: the greedy player (rung 1), which looks one move ahead and
// never plans, wins at least half its games, or nearly. Above it the
// rungs are beams whose width doubles from rung to rung, and the score
// climbs about one point per doubling of the positions a player must keep
// in mind to win, up to 10 at the top, where no beam of the ladder wins
// half its games.
func LadderScore(x float64, top int) int {
	span := float64(top) - 0.5
	s := 1 + int(math.Round(9*min(max(x-1, 0), span)/span))
	return min(max(s, 1), 10)
}

// PlayoutScore is the score of the figures before the ladder, from the
// random and greedy win rates and the first-move share:
//
//	p'    = p clamped to [0.001, 0.999]
//	h(p)  = (3 + log10((1 − p') / p')) / 6      (0 when p ≥ 0.999, ½ at p = ½, 1 when p ≤ 0.001)
//	raw   = 0.4·h(random) + 0.4·h(greedy) + 0.2·(1 − first-move share)
//	score = 1 + round(9·raw)
//
// Terms whose figure is missing are dropped and the weights of the others
// rescaled to sum to 1. Every term grows when a player wins less or fewer
// first moves win, so the score never falls as a level gets harder in
// those figures. Nil when there is no figure at all.
func PlayoutScore(f Figures) *int {
	raw, weight := 0.0, 0.0
	if f.Random != nil {
		raw += weightRandom * hardness(f.Random.Rate)
		weight += weightRandom
	}
	if f.Greedy != nil {
		raw += weightGreedy * hardness(f.Greedy.Rate)
		weight += weightGreedy
	}
	if f.First != nil && f.First.Moves > 0 {
		raw += weightFirst * (1 - f.First.Share)
		weight += weightFirst
	}
	if weight == 0 {
		return nil
	}
	s := 1 + int(math.Round(9*raw/weight))
	return &s
}

// hardness maps a win rate to [0, 1] on a log-odds scale, so that both
// ends keep their resolution: 0.9 and 0.999 differ as much as 0.1 and
// 0.001 (one player almost always wins a level, another almost never).
func hardness(p float64) float64 {
	p = math.Min(math.Max(p, rateFloor), 1-rateFloor)
	return (3 + math.Log10((1-p)/p)) / 6
}
