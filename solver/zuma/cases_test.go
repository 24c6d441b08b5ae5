package zuma

import (
	"testing"

	"github.com/puzzled/puzzled/solver"
)

func TestKnownCases(t *testing.T) {
	t.Parallel()
	tests := []struct {
		board, hand, ammo string
		mode              Mode
		verdict           solver.Verdict
		value             int
		cleared           bool
	}{
		{"WRRBBW", "RB", "", ModeHand, solver.Unsolvable, -1, false},
		{"WWRRBBWW", "WRBRW", "", ModeHand, solver.Solved, 2, false},
		{"G", "GGGGG", "", ModeHand, solver.Solved, 2, false},
		{"RBYYBBRRB", "YRBGB", "", ModeHand, solver.Solved, 3, false},
		{"RRWWRRBBRR", "WB", "", ModeHand, solver.Solved, 2, false},
		// Unsolvable only by a long proof (see TestHardUnsolvablePlain).
		{"CCACCAACACABBCCAABACAACAABCCB", "AABBCCCC", "", ModeHand, solver.Unsolvable, -1, false},
		{"RRWWRRBBRR", "", "", ModeUnlimited, solver.Solved, 2, false},
		{"GRG", "", "", ModeUnlimited, solver.Solved, 3, false},
		{"R", "", "", ModeUnlimited, solver.Solved, 2, false},
		{"RR", "", "RRRR", ModeAmmo, solver.Solved, 6, true},
		{"RR", "", "RG", ModeAmmo, solver.Solved, 3, true},
		{"RR", "", "GGB", ModeAmmo, solver.Solved, 0, false},
		{"BBRRGGBRRG", "", "RGBRB", ModeAmmo, solver.Solved, 13, false},
	}
	for _, tt := range tests {
		t.Run(tt.board+"+"+tt.hand+tt.ammo, func(t *testing.T) {
			t.Parallel()
			lvl := level(t, tt.board, tt.hand, tt.ammo, tt.mode)
			res := solve(t, lvl, solver.Options{})
			if res.Verdict != tt.verdict || value(res) != tt.value {
				t.Fatalf("got %s %d, want %s %d (plan %s)", res.Verdict, value(res), tt.verdict, tt.value, res.Plan)
			}
			if tt.verdict == solver.Solved && !res.Optimal {
				t.Fatalf("not optimal: %+v", res)
			}
			if tt.mode == ModeAmmo && res.Details["cleared"] != tt.cleared {
				t.Fatalf("cleared %v, want %v", res.Details["cleared"], tt.cleared)
			}
		})
	}
}
