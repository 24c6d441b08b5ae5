package twoends

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/difficulty"
)

func TestRateMarginAndShares(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	cases := []struct {
		name   string
		values []int64
	}{
		{"one value", []int64{4}},
		{"symmetric", []int64{5, 1, 5}},
		{"only left", []int64{3, 1, 2}},
		{"only right", []int64{1, 9, 2, 20}},
	}
	for i := range 50 {
		a := make([]int64, 1+rng.IntN(9))
		for j := range a {
			a[j] = rng.Int64N(11) - 3
		}
		cases = append(cases, struct {
			name   string
			values []int64
		}{fmt.Sprintf("random %d", i), a})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := &Level{values: tc.values}
			f, err := kind{}.Rate(context.Background(), l, solver.Result{}, difficulty.Options{Plies: 3})
			if err != nil {
				t.Fatal(err)
			}
			want, _ := bruteValue(tc.values)
			if *f.Margin != want {
				t.Fatalf("margin %d, brute force %d", *f.Margin, want)
			}
			// Every ply along the optimal line (ties → L) against brute force.
			a := tc.values
			for p, share := range f.Plies {
				if share.Winning != bruteKeep(a) {
					t.Fatalf("ply %d of %v: %+v, brute force keeps %d", p, tc.values, share, bruteKeep(a))
				}
				v, _ := bruteValue(a)
				if l, _ := bruteValue(a[1:]); a[0]-l == v {
					a = a[1:]
				} else {
					a = a[:len(a)-1]
				}
			}
			if len(f.Plies) != min(3, len(tc.values)) {
				t.Fatalf("%d plies for %d values", len(f.Plies), len(tc.values))
			}
			if f.Random != nil || f.Score != nil {
				t.Fatalf("twoends has no playouts or score: %+v", f)
			}
		})
	}
}

// bruteValue is the minimax value of a by full recursion.
func bruteValue(a []int64) (int64, bool) {
	if len(a) == 0 {
		return 0, true
	}
	l, _ := bruteValue(a[1:])
	r, _ := bruteValue(a[:len(a)-1])
	return max(a[0]-l, a[len(a)-1]-r), true
}

// bruteKeep counts the distinct ends whose move keeps the optimum.
func bruteKeep(a []int64) int {
	v, _ := bruteValue(a)
	l, _ := bruteValue(a[1:])
	r, _ := bruteValue(a[:len(a)-1])
	n := 0
	if a[0]-l == v {
		n++
	}
	if len(a) > 1 && a[len(a)-1]-r == v {
		n++
	}
	return n
}
