package zuma

import (
	"math/rand/v2"
	"testing"

	"github.com/puzzled/puzzled/solver"
)

// plainHand is the fewest insertions from hand that clear board, or -1:
// iterative deepening over every position and every hand color with the
// oracle's simulator, pruned only by the plain relaxation bound (no
// Lagrangian steps, no counting test, no move ordering) and a memo of
// depths already refuted. Slower than the solver, far faster than the
// BFS oracle on boards of 20–30 balls.
func plainHand(board, hand string) int {
	var bd bounder
	bounds := map[string]int{}
	refuted := map[string]int{}
	var dfs func(b string, h [26]int8, d int) bool
	dfs = func(b string, h [26]int8, d int) bool {
		if b == "" {
			return true
		}
		var hb [26]byte
		for c, k := range h {
			hb[c] = byte(k)
		}
		key := b + "|" + string(hb[:])
		lb, ok := bounds[key]
		if !ok {
			lb = bd.bound([]byte(b), &h)
			bounds[key] = lb
		}
		if lb > d {
			return false
		}
		if r, ok := refuted[key]; ok && r >= d {
			return false
		}
		for c := range h {
			if h[c] == 0 {
				continue
			}
			h[c]--
			for at := 0; at <= len(b); at++ {
				if dfs(oracleInsert(b, at, byte('A'+c)), h, d-1) {
					return true
				}
			}
			h[c]++
		}
		refuted[key] = d
		return false
	}
	h := handCounts(hand)
	for d := 0; d <= len(hand); d++ {
		if dfs(board, h, d) {
			return d
		}
	}
	return -1
}

// TestPlainSearchMidSize checks the solver against plainHand on levels
// too large for the BFS oracle (boards of 14–24 balls, hands of 5–7),
// where the Lagrangian bound does most of its pruning.
func TestPlainSearchMidSize(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(23, 1))
	verdicts := map[solver.Verdict]int{}
	for range 600 {
		colors := 2 + r.IntN(3)
		board := randomBoard(r, 14+r.IntN(11), colors)
		hand := randomBalls(r, 5+r.IntN(3), colors)
		lvl := level(t, board, hand, "", ModeHand)
		res := solve(t, lvl, solver.Options{})
		if want := plainHand(board, hand); value(res) != want {
			t.Fatalf("%s: solver %s %d, plain search %d", lvl.Canonical(), res.Verdict, value(res), want)
		}
		verdicts[res.Verdict]++
	}
	t.Logf("verdicts: %v", verdicts)
}

// TestHardUnsolvablePlain: the level that took the first solver ~7 s to
// prove unsolvable, checked once more by the plain search (a few
// seconds). TestKnownCases holds its verdict.
func TestHardUnsolvablePlain(t *testing.T) {
	t.Parallel()
	if v := plainHand("CCACCAACACABBCCAABACAACAABCCB", "AABBCCCC"); v != -1 {
		t.Fatalf("plain search clears it in %d", v)
	}
}
