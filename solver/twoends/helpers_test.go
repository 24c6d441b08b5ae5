package twoends

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/puzzled/puzzled/solver"
)

// mustLevel builds a level from values, failing the test on a parse error.
func mustLevel(t testing.TB, values []int64) *Level {
	t.Helper()
	l, err := NewLevel(values)
	if err != nil {
		t.Fatalf("NewLevel(%v): %v", values, err)
	}
	return l
}

// solveVerified solves l without a budget and verifies the result.
func solveVerified(t testing.TB, l *Level) solver.Result {
	t.Helper()
	k := New()
	res, err := k.Solve(context.Background(), l, solver.Options{})
	if err != nil {
		t.Fatalf("Solve(%v): %v", l.values, err)
	}
	if err := k.Verify(l, res); err != nil {
		t.Fatalf("Verify(%v): %v", l.values, err)
	}
	return res
}

// planLine decodes the plan of a result ("" when omitted).
func planLine(t testing.TB, res solver.Result) string {
	t.Helper()
	if len(res.Plan) == 0 {
		return ""
	}
	var line string
	if err := json.Unmarshal(res.Plan, &line); err != nil {
		t.Fatalf("plan %s: %v", res.Plan, err)
	}
	return line
}
