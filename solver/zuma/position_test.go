package zuma

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/puzzled/puzzled/solver"
)

// TestPositionAgreesWithOracle plays random legal prefixes of random hand
// and ammo levels (fixed seed) and checks the position against the
// brute-force oracles run on the board and balls left: the hand
// position's level is solvable exactly when the oracle empties the board,
// with the oracle's count of insertions; the ammo position's best value
// plus the balls vanished so far is the oracle's best from there; a
// continuation replays from the start after the prefix.
func TestPositionAgreesWithOracle(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 32))
	counts := map[string]int{}
	for k := range 800 {
		board := randomBoard(rng, 3+rng.IntN(8), 3)
		balls := randomBalls(rng, 2+rng.IntN(4), 3)
		mode := ModeHand
		if k%2 == 1 {
			mode = ModeAmmo
		}
		l := level(t, board, balls, balls, mode)
		prefix := randomZumaPrefix(rng, l)
		plan, _ := json.Marshal(prefix)
		p, err := New().(kind).Position(l, plan)
		if err != nil {
			t.Fatalf("%s after %s: %v", l.Canonical(), plan, err)
		}
		o, _ := Replay(l, prefix)
		if p.Over {
			counts["over"]++
			if p.Won != (o.Board == "") {
				t.Fatalf("%s after %s: won %t, board %q", l.Canonical(), plan, p.Won, o.Board)
			}
			continue
		}
		if want := (len(o.Board) + 1) * len(distinct(restOf(l, prefix))); mode == ModeHand && len(p.Moves) != want {
			t.Fatalf("%s: %d moves, want %d", l.Canonical(), len(p.Moves), want)
		}
		res := solve(t, p.Level.(*Level), solver.Options{})
		switch mode {
		case ModeHand:
			want := oracleHand(o.Board, restOf(l, prefix))
			if (want >= 0) != (res.Verdict == solver.Solved) || (want >= 0 && value(res) != want) {
				t.Fatalf("%s after %s: position %s %d, oracle %d", l.Canonical(), plan, res.Verdict, value(res), want)
			}
			counts["hand "+string(res.Verdict)]++
		case ModeAmmo:
			best, _ := oracleAmmo(o.Board, l.Ammo[len(prefix):])
			if int(p.Value)+value(res) != o.Vanished+best {
				t.Fatalf("%s after %s: %d + %d, oracle %d + %d", l.Canonical(), plan, p.Value, value(res), o.Vanished, best)
			}
			counts["ammo"]++
		}
		line, err := solver.JoinPlans(plan, res.Plan)
		if err != nil {
			t.Fatal(err)
		}
		moves, _ := DecodePlan(line)
		if _, err := Replay(l, moves); err != nil {
			t.Fatalf("%s: prefix + continuation: %v", l.Canonical(), err)
		}
	}
	t.Logf("positions: %v", counts)
	if counts["hand solved"] < 20 || counts["hand unsolvable"] < 20 || counts["ammo"] < 50 {
		t.Fatalf("random positions do not cover the cases: %v", counts)
	}
}

// restOf is the hand left after prefix, sorted.
func restOf(l *Level, prefix []Move) string {
	h := l.Hand
	for _, mv := range prefix {
		h = strings.Replace(h, mv.Ball, "", 1)
	}
	return h
}

// randomZumaPrefix plays a few random legal shots.
func randomZumaPrefix(rng *rand.Rand, l *Level) []Move {
	var out []Move
	for range rng.IntN(4) {
		o, _ := Replay(l, out)
		var balls string
		if l.Mode == ModeHand {
			balls = restOf(l, out)
		} else if len(out) < len(l.Ammo) {
			balls = l.Ammo[len(out) : len(out)+1]
		}
		if o.Board == "" || balls == "" {
			break
		}
		out = append(out, Move{At: rng.IntN(len(o.Board) + 1), Ball: string(balls[rng.IntN(len(balls))])})
	}
	return out
}

// TestExplainShortHand names the colors the hand is short of.
func TestExplainShortHand(t *testing.T) {
	t.Parallel()
	l := level(t, "RGGBB", "G", "", ModeHand)
	res := solve(t, l, solver.Options{})
	e := New().(kind).Explain(l, res, solver.Budget{})
	if res.Verdict != solver.Unsolvable || !strings.Contains(e.Summary, "R: the board has 1, so the hand must bring at least 2 more, and it has 0") ||
		e.Counts["R"] != 1 {
		t.Fatalf("%s: %+v", res.Verdict, e)
	}
}
