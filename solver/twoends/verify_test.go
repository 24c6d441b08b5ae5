package twoends

import (
	"encoding/json"
	"errors"
	"maps"
	"math"
	"testing"

	"github.com/puzzled/puzzled/solver"
)

func TestVerifyRejects(t *testing.T) {
	t.Parallel()
	l := mustLevel(t, []int64{2, 1, 100, 3}) // value 98, 102/4, line LLLL
	good := solveVerified(t, l)
	tests := []struct {
		name   string
		mutate func(r *solver.Result)
	}{
		{"value", func(r *solver.Result) { r.Value = solver.Int64(97) }},
		{"no value", func(r *solver.Result) { r.Value = nil }},
		{"not optimal", func(r *solver.Result) { r.Optimal = false }},
		{"proof", func(r *solver.Result) { r.Proof = "guess" }},
		{"verdict", func(r *solver.Result) { r.Verdict = solver.Unsolvable }},
		{"first", func(r *solver.Result) { r.Details["first"] = int64(101) }},
		{"second", func(r *solver.Result) { r.Details["second"] = "4" }},
		{"winner", func(r *solver.Result) { r.Details["winner"] = "tie" }},
		{"missing winner", func(r *solver.Result) { delete(r.Details, "winner") }},
		{"extra key", func(r *solver.Result) { r.Details["cleared"] = true }},
		{"omitted", func(r *solver.Result) { r.Details["line_omitted"] = true; r.Plan = nil }},
		{"no plan", func(r *solver.Result) { r.Plan = nil }},
		{"short plan", func(r *solver.Result) { r.Plan = json.RawMessage(`"LLL"`) }},
		{"bad letter", func(r *solver.Result) { r.Plan = json.RawMessage(`"LLLX"`) }},
		{"not a string", func(r *solver.Result) { r.Plan = json.RawMessage(`["L","L","L","L"]`) }},
		{"other line, same totals claimed", func(r *solver.Result) { r.Plan = json.RawMessage(`"RLLL"`) }},
		// R first gives 3+2 vs 100+1: totals and value consistent, not optimal.
		{"consistent but suboptimal", func(r *solver.Result) {
			r.Plan = json.RawMessage(`"RRLL"`)
			r.Value = solver.Int64(-96)
			r.Details = map[string]any{"first": int64(5), "second": int64(101), "winner": "second"}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := good
			res.Details = maps.Clone(good.Details)
			tc.mutate(&res)
			if err := New().Verify(l, res); err == nil {
				t.Fatalf("Verify accepted %+v", res)
			}
		})
	}
}

func TestVerifyAcceptsJSONRoundTrip(t *testing.T) {
	t.Parallel()
	for _, values := range [][]int64{{3, 1, 2}, make([]int64, LineLimit+1)} {
		l := mustLevel(t, values)
		res := solveVerified(t, l)
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		var back solver.Result
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if err := New().Verify(l, back); err != nil {
			t.Fatalf("after a JSON round trip: %v", err)
		}
	}
}

func TestLineOmitted(t *testing.T) {
	t.Parallel()
	a := benchValues(LineLimit + 1)
	res := solveVerified(t, mustLevel(t, a))
	if res.Plan != nil || res.Details["line_omitted"] != true {
		t.Fatalf("n=%d: plan %d bytes, details %v; want the line omitted", len(a), len(res.Plan), res.Details)
	}
	if want := dpValue(a); *res.Value != want {
		t.Fatalf("value %d, DP %d", *res.Value, want)
	}
	bad := res
	bad.Value = solver.Int64(*res.Value + 2)
	bad.Details = map[string]any{"first": res.Details["first"].(int64) + 1, "second": res.Details["second"].(int64) - 1, "winner": res.Details["winner"], "line_omitted": true}
	if err := New().Verify(mustLevel(t, a), bad); err == nil {
		t.Fatal("Verify accepted a wrong value with the line omitted")
	}
}

func TestVerifyUnknown(t *testing.T) {
	t.Parallel()
	l := mustLevel(t, []int64{3, 1, 2})
	ok := []solver.Result{
		{Verdict: solver.Unknown},
		{Verdict: solver.Unknown, Plan: json.RawMessage(`"LR"`)},
	}
	for _, r := range ok {
		if err := New().Verify(l, r); err != nil {
			t.Errorf("%+v: %v", r, err)
		}
	}
	bad := []solver.Result{
		{Verdict: solver.Unknown, Value: solver.Int64(2)},
		{Verdict: solver.Unknown, Plan: json.RawMessage(`"LRLL"`)},
		{Verdict: solver.Unknown, Plan: json.RawMessage(`"LQ"`)},
	}
	for _, r := range bad {
		if err := New().Verify(l, r); !errors.Is(err, ErrVerify) {
			t.Errorf("%+v: %v, want ErrVerify", r, err)
		}
	}
}

// TestOverflow builds levels that Parse would reject; Solve and Verify
// must report the overflow instead of computing wrapped sums.
func TestOverflow(t *testing.T) {
	t.Parallel()
	for _, values := range [][]int64{
		{math.MaxInt64},
		{math.MinInt64},
		{math.MaxInt64 / 4, math.MaxInt64 / 4, -math.MaxInt64 / 4},
	} {
		l := &Level{values: values}
		if _, err := New().Solve(t.Context(), l, solver.Options{}); !errors.Is(err, ErrOverflow) {
			t.Errorf("Solve(%v): %v, want ErrOverflow", values, err)
		}
		if err := New().Verify(l, solver.Result{Verdict: solver.Unknown}); !errors.Is(err, ErrOverflow) {
			t.Errorf("Verify(%v): %v, want ErrOverflow", values, err)
		}
	}
	// At the limits the sums are exact: n·MaxAbsValue fits easily.
	a := []int64{MaxAbsValue, -MaxAbsValue, MaxAbsValue, MaxAbsValue, -MaxAbsValue}
	if res, want := solveVerified(t, mustLevel(t, a)), dpTable(a)[0][len(a)-1]; *res.Value != want {
		t.Fatalf("value %d, want %d", *res.Value, want)
	}
}
