package zuma

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/puzzled/puzzled/solver"
)

// level builds a level through Parse.
func level(t testing.TB, board, hand, ammo string, mode Mode) *Level {
	t.Helper()
	obj := map[string]string{"kind": "zuma", "board": board}
	switch mode {
	case ModeHand:
		obj["hand"] = hand
	case ModeAmmo:
		obj["ammo"] = ammo
	}
	data, _ := json.Marshal(obj)
	lvl, err := Parse(data)
	if err != nil {
		t.Fatalf("parse %s: %v", data, err)
	}
	return lvl
}

// solve runs the kind's Solve and Verify and fails the test on any error.
func solve(t testing.TB, lvl *Level, opts solver.Options) solver.Result {
	t.Helper()
	res, err := New().Solve(context.Background(), lvl, opts)
	if err != nil {
		t.Fatalf("%s: solve: %v", lvl.Canonical(), err)
	}
	if err := New().Verify(lvl, res); err != nil {
		t.Fatalf("%s: verify: %v", lvl.Canonical(), err)
	}
	return res
}

func value(res solver.Result) int {
	if res.Value == nil {
		return -1
	}
	return int(*res.Value)
}
