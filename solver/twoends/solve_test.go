package twoends

import (
	"testing"
)

func TestKnownCases(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		values        []int64
		value         int64
		first, second int64
		winner        string
		line          string
	}{
		{"single", []int64{1}, 1, 1, 0, "first", "L"},
		{"pair", []int64{1, 2}, 1, 2, 1, "first", "RL"},
		{"issue example", []int64{3, 1, 2}, 2, 4, 2, "first", "LRL"},
		// Even length: first can take all odd or all even positions, so it
		// never loses. Here first takes 2, and whatever second takes next
		// exposes 100.
		{"even cannot lose", []int64{1, 100, 3, 2}, 98, 102, 4, "first", "RLLL"},
		// Taking the larger end (3) would expose 100 to second: value −96.
		{"even, larger end loses", []int64{2, 1, 100, 3}, 98, 102, 4, "first", "LLLL"},
		{"even tie", []int64{5, 5, 5, 5}, 0, 10, 10, "tie", "LLLL"},
		{"second wins", []int64{1, 10, 2}, -7, 3, 10, "second", "LLL"},
		{"negative", []int64{-3, -1, -2}, -4, -5, -1, "second", "LLL"},
		{"ties to L", []int64{4, 4}, 0, 4, 4, "tie", "LL"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := mustLevel(t, tc.values)
			res := solveVerified(t, l)
			d := res.Details
			if *res.Value != tc.value || d["first"] != tc.first || d["second"] != tc.second || d["winner"] != tc.winner {
				t.Errorf("%v: value %d details %v, want %d %d/%d %s", tc.values, *res.Value, d, tc.value, tc.first, tc.second, tc.winner)
			}
			if got := planLine(t, res); got != tc.line {
				t.Errorf("%v: line %q, want %q", tc.values, got, tc.line)
			}
			if want := dpTable(tc.values)[0][len(tc.values)-1]; want != tc.value {
				t.Errorf("%v: table case is wrong: DP says %d", tc.values, want)
			}
		})
	}
}
