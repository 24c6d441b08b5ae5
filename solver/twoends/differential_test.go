package twoends

import (
	"math/rand/v2"
	"testing"
)

// TestOraclesAgree checks the DP against the exhaustive game tree.
func TestOraclesAgree(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 7))
	for it := 0; it < 3000; it++ {
		a := randomValues(r, 1+r.IntN(12), -20, 20)
		if got, want := dpTable(a)[0][len(a)-1], minimax(a); got != want {
			t.Fatalf("%v: DP %d, minimax %d", a, got, want)
		}
	}
}

// TestDifferential solves random arrays and compares value, totals and the
// whole line with the DP; every move of the line must keep the optimum.
func TestDifferential(t *testing.T) {
	t.Parallel()
	ranges := []struct {
		name   string
		lo, hi int64
		maxN   int
		count  int
		seedA  uint64
	}{
		{"small signed", -50, 50, 60, 60_000, 1},
		{"large positive", 0, 10_000_000, 60, 50_000, 2},
		{"tiny alphabet", -2, 2, 40, 20_000, 3},
	}
	for _, rg := range ranges {
		t.Run(rg.name, func(t *testing.T) {
			t.Parallel()
			r := rand.New(rand.NewPCG(rg.seedA, 99))
			for it := 0; it < rg.count; it++ {
				a := randomValues(r, 1+r.IntN(rg.maxN), rg.lo, rg.hi)
				checkAgainstDP(t, a)
			}
		})
	}
}

func randomValues(r *rand.Rand, n int, lo, hi int64) []int64 {
	a := make([]int64, n)
	for i := range a {
		a[i] = lo + r.Int64N(hi-lo+1)
	}
	return a
}

// checkAgainstDP solves a, verifies, and checks the result against the DP:
// value, totals, and the line move by move (each move optimal, ties → L).
func checkAgainstDP(t *testing.T, a []int64) {
	t.Helper()
	res := solveVerified(t, mustLevel(t, a))
	tab := dpTable(a)
	n := len(a)
	if want := tab[0][n-1]; *res.Value != want {
		t.Fatalf("%v: value %d, DP %d", a, *res.Value, want)
	}
	line := planLine(t, res)
	if want := dpLine(a, tab); line != want {
		t.Fatalf("%v: line %q, DP line %q", a, line, want)
	}
	var totals [2]int64
	i, j := 0, n-1
	for k := 0; k < n; k++ {
		cur := tab[i][j]
		var got int64
		if line[k] == 'L' {
			got = a[i]
			totals[k%2] += a[i]
			i++
		} else {
			got = a[j]
			totals[k%2] += a[j]
			j--
		}
		if i <= j {
			got -= tab[i][j]
		}
		if got != cur {
			t.Fatalf("%v: move %d (%c) loses: %d < %d", a, k, line[k], got, cur)
		}
	}
	if res.Details["first"] != totals[0] || res.Details["second"] != totals[1] {
		t.Fatalf("%v: details %v, replay %v", a, res.Details, totals)
	}
}

// TestEvenLengthFirstCannotLose: with an even number of values the first
// player can take all even or all odd positions, so the value is ≥ 0.
func TestEvenLengthFirstCannotLose(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(11, 12))
	for it := 0; it < 5000; it++ {
		a := randomValues(r, 2*(1+r.IntN(200)), -1000, 1000)
		var even, odd int64
		for i, v := range a {
			if i%2 == 0 {
				even += v
			} else {
				odd += v
			}
		}
		res := solveVerified(t, mustLevel(t, a))
		if v := *res.Value; v < 0 || v < even-odd || v < odd-even {
			t.Fatalf("%v: value %d below the parity strategy (%d, %d)", a, v, even-odd, odd-even)
		}
	}
}

// TestShapesAgainstDP runs the hard shapes of the benchmarks at a size the
// DP table handles, so the valley shortcut and the scan reuse are checked
// on long monotone runs and many direction changes.
func TestShapesAgainstDP(t *testing.T) {
	t.Parallel()
	for _, sh := range shapes {
		for _, n := range []int{299, 300} {
			r := rand.New(rand.NewPCG(4, uint64(n)))
			a := make([]int64, n)
			for i := range a {
				a[i] = sh.f(r, i, n)
			}
			checkAgainstDP(t, a)
		}
	}
}
