// Package twoendstest is a twoends oracle for the tests of other packages
// (the service's end-to-end tests check stored twoends results with it):
// an O(n²) solution written apart from the solver, and a replay of a line.
// The solver's own tests have theirs (oracle_test.go).
package twoendstest

import "fmt"

// DP is an independent O(n²) solution of twoends: first minus
// second under optimal play.
func DP(v []int64) int64 {
	d := make([]int64, len(v)) // d[i] = best difference on v[i..j] for the current j
	for j := range v {
		d[j] = v[j]
		for i := j - 1; i >= 0; i-- {
			d[i] = max(v[i]-d[i+1], v[j]-d[i])
		}
	}
	return d[0]
}

// Replay plays a twoends line ("LRL…") and returns first minus second.
func Replay(v []int64, line string) (int64, error) {
	if len(line) != len(v) {
		return 0, fmt.Errorf("line has %d moves for %d values", len(line), len(v))
	}
	l, r, diff, sign := 0, len(v)-1, int64(0), int64(1)
	for _, m := range line {
		switch m {
		case 'L':
			diff += sign * v[l]
			l++
		case 'R':
			diff += sign * v[r]
			r--
		default:
			return 0, fmt.Errorf("bad move %q", m)
		}
		sign = -sign
	}
	return diff, nil
}
