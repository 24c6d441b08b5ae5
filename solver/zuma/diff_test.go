package zuma

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/puzzled/puzzled/solver"
)

// The differential tests: 10,000 random levels per mode (fixed seeds),
// boards of 1–12 balls over 2–5 colors, each solved, verified (every plan
// replayed) and compared with the brute-force oracle of oracle_test.go.

// randomBoard is a board of n balls over the first colors letters with
// no run of 3+.
func randomBoard(r *rand.Rand, n, colors int) string {
	b := make([]byte, 0, n)
	for len(b) < n {
		c := byte('A' + r.IntN(colors))
		if len(b) >= 2 && b[len(b)-1] == c && b[len(b)-2] == c {
			continue
		}
		b = append(b, c)
	}
	return string(b)
}

func randomBalls(r *rand.Rand, n, colors int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('A' + r.IntN(colors))
	}
	return string(b)
}

// diffLevels runs check on count random levels with hand or ammo sizes in
// [minBalls, maxBalls], in parallel subtests of 250 levels.
func diffLevels(t *testing.T, seed uint64, count, minBalls, maxBalls int, check func(t *testing.T, board, balls string)) {
	for chunk := 0; chunk < count/250; chunk++ {
		t.Run(fmt.Sprint(chunk), func(t *testing.T) {
			t.Parallel()
			r := rand.New(rand.NewPCG(seed, uint64(chunk)))
			for range 250 {
				colors := 2 + r.IntN(4)
				board := randomBoard(r, 1+r.IntN(12), colors)
				check(t, board, randomBalls(r, minBalls+r.IntN(maxBalls-minBalls+1), colors))
			}
		})
	}
}

func checkHand(t *testing.T, board, hand string) {
	lvl := level(t, board, hand, "", ModeHand)
	want := oracleHand(board, hand)
	res := solve(t, lvl, solver.Options{})
	if value(res) != want || (want < 0) != (res.Verdict == solver.Unsolvable) || (want >= 0) != res.Optimal {
		t.Fatalf("%s: got %s %d, oracle %d (plan %s)", lvl.Canonical(), res.Verdict, value(res), want, res.Plan)
	}
}

func checkAmmo(t *testing.T, board, ammo string) {
	lvl := level(t, board, "", ammo, ModeAmmo)
	best, shots := oracleAmmo(board, ammo)
	res := solve(t, lvl, solver.Options{})
	if value(res) != best || res.Details["shots"] != shots || !res.Optimal {
		t.Fatalf("%s: got %d in %v shots, oracle %d in %d (plan %s)", lvl.Canonical(), value(res), res.Details["shots"], best, shots, res.Plan)
	}
}

// Hands of 0–4 balls: the oracle's cost grows about 10× per hand ball.
func TestDifferentialHand(t *testing.T) {
	t.Parallel()
	diffLevels(t, 1, 10000, 0, 4, checkHand)
}

// Hands of 5 balls (LeetCode's largest), fewer levels.
func TestDifferentialHandFive(t *testing.T) {
	t.Parallel()
	diffLevels(t, 11, 250, 5, 5, checkHand)
}

func TestDifferentialAmmo(t *testing.T) {
	t.Parallel()
	diffLevels(t, 2, 10000, 0, 4, checkAmmo)
}

func TestDifferentialAmmoFive(t *testing.T) {
	t.Parallel()
	diffLevels(t, 12, 250, 5, 5, checkAmmo)
}

// oracleStates caps the unlimited oracle; levels it cannot decide within
// the cap are still checked against its proven lower bound.
const oracleStates = 5000

func TestDifferentialUnlimited(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var exact [20]int
	diffLevels(t, 3, 10000, 0, 0, func(t *testing.T, board, _ string) {
		lvl := level(t, board, "", "", ModeUnlimited)
		res := solve(t, lvl, solver.Options{})
		want, ok := oracleUnlimited(board, oracleStates)
		if !res.Optimal || (ok && value(res) != want) || (!ok && value(res) < want) {
			t.Fatalf("%s: got %d (optimal %v), oracle %d exact %v (plan %s)", lvl.Canonical(), value(res), res.Optimal, want, ok, res.Plan)
		}
		if ok {
			mu.Lock()
			exact[len(board)]++
			mu.Unlock()
		}
	})
	t.Cleanup(func() { t.Logf("levels decided exactly by the oracle, by board length: %v", exact[1:13]) })
}
