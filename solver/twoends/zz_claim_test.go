package twoends

import (
	"math/rand/v2"
	"testing"
)

func isValley(a []int64) bool {
	for k := 1; k+1 < len(a); k++ {
		if a[k-1] <= a[k] && a[k] >= a[k+1] {
			return false
		}
	}
	return true
}

func TestZZValleyClaim(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	found := 0
	for it := 0; it < 2000000 && found < 5; it++ {
		n := 2 + r.IntN(9)
		a := randomValues(r, n, -4, 4)
		if !isValley(a) || a[0] >= a[n-1] {
			continue
		}
		tab := dpTable(a)
		if a[0]-tab[1][n-1] == tab[0][n-1] {
			t.Logf("L optimal with a[i]<a[j]: %v", a)
			found++
		}
	}
}
