package columns

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/puzzled/puzzled/solver"
)

func solveOK(t *testing.T, k solver.Kind, l *Level, opts solver.Options) solver.Result {
	t.Helper()
	res, err := k.Solve(context.Background(), l, opts)
	if err != nil {
		t.Fatalf("%s: %v", l.Canonical(), err)
	}
	if err := k.Verify(l, res); err != nil {
		t.Fatalf("%s: verify: %v", l.Canonical(), err)
	}
	return res
}

// TestBeamLongLevels solves 40-piece levels with the beam search: every
// result verifies, and score, target and survive levels are mostly solved.
func TestBeamLongLevels(t *testing.T) {
	k := NewWithConfig(Config{BeamWidth: 100, MaxBeamWidth: 100})
	for ri, rule := range allRules {
		for gi, goal := range allGoals {
			rng := rand.New(rand.NewPCG(uint64(ri), uint64(gi)+50))
			solved := 0
			for range 6 {
				l, err := Generate(rng, GenConfig{Width: 6, Height: 13, Rule: rule, Colors: 4,
					Fill: 0.4, Pieces: 40, Goal: goal, Score: 40})
				if err != nil {
					t.Fatal(err)
				}
				res := solveOK(t, k, l, solver.Options{})
				if res.Details["search"] != searchBeam && res.Details["search"] != searchPrecheck {
					t.Fatalf("search %v on 40 pieces", res.Details["search"])
				}
				if res.Verdict == solver.Unsolvable && res.Details["search"] == searchBeam {
					t.Fatalf("beam search claims unsolvable")
				}
				if res.Verdict == solver.Solved {
					solved++
				}
			}
			if goal != GoalClear && solved < 4 {
				t.Fatalf("%s/%s: beam solved only %d of 6", rule, goal, solved)
			}
		}
	}
}

func TestSolveDeterministic(t *testing.T) {
	k := NewWithConfig(Config{BeamWidth: 50, MaxBeamWidth: 200})
	rng := rand.New(rand.NewPCG(3, 3))
	for _, goal := range allGoals {
		for _, pieces := range []int{5, 25} {
			l, err := Generate(rng, GenConfig{Width: 6, Height: 10, Colors: 4, Fill: 0.4, Pieces: pieces, Goal: goal, Score: 30})
			if err != nil {
				t.Fatal(err)
			}
			a := solveOK(t, k, l, solver.Options{})
			b := solveOK(t, k, l, solver.Options{})
			a.Stats.ElapsedMS, b.Stats.ElapsedMS = 0, 0
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("%s: two runs differ:\n%+v\n%+v", l.Canonical(), a, b)
			}
		}
	}
}

// TestIdenticalRotationsOnce: a piece of three equal jewels is tried once
// per column.
func TestIdenticalRotationsOnce(t *testing.T) {
	k := New()
	l := mustParse(t, levelJSONOf(RuleLines, []string{"....", "....", "....", "AB.."}, []string{"CCC"}, `{"type":"target","cell":[3,1]}`))
	res := solveOK(t, k, l, solver.Options{})
	if res.Verdict != solver.Unsolvable || res.Stats.Nodes != 4 {
		t.Fatalf("verdict %s nodes %d, want unsolvable after 4 nodes", res.Verdict, res.Stats.Nodes)
	}
	l = mustParse(t, levelJSONOf(RuleLines, []string{"....", "....", "....", "AB.."}, []string{"CCD"}, `{"type":"target","cell":[3,1]}`))
	if res := solveOK(t, k, l, solver.Options{}); res.Stats.Nodes != 12 {
		t.Fatalf("nodes %d, want 12", res.Stats.Nodes)
	}
}

func TestPrecheck(t *testing.T) {
	k := New()
	pieces := make([]string, 20)
	for i := range pieces {
		pieces[i] = "ABC"
	}
	cases := []struct {
		rows []string
		goal string
	}{
		{[]string{"......", "......", "......", "Z....."}, `{"type":"clear"}`},
		{[]string{"......", "......", "......", "Z....."}, `{"type":"target","cell":[3,0]}`},
		{[]string{"......", "......", "......", "......"}, `{"type":"score","score":100000}`},
	}
	for _, tc := range cases {
		l := mustParse(t, levelJSONOf(RuleLines, tc.rows, pieces, tc.goal))
		res := solveOK(t, k, l, solver.Options{})
		if res.Verdict != solver.Unsolvable || res.Details["search"] != searchPrecheck {
			t.Fatalf("%s: %s by %v", tc.goal, res.Verdict, res.Details["search"])
		}
	}
}

func TestSolveCanceled(t *testing.T) {
	k := New()
	rng := rand.New(rand.NewPCG(4, 4))
	for _, pieces := range []int{6, 60} {
		l, err := Generate(rng, GenConfig{Width: 6, Height: 13, Colors: 5, Fill: 0.3, Pieces: pieces, Goal: GoalClear})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		res, err := k.Solve(ctx, l, solver.Options{})
		if !errors.Is(err, context.Canceled) || res.Verdict != solver.Unknown {
			t.Fatalf("%d pieces: verdict %s err %v", pieces, res.Verdict, err)
		}
		if err := k.Verify(l, res); err != nil {
			t.Fatalf("partial result: %v", err)
		}
	}
}

// TestVerifyRejects tampers with a correct result in every claim.
func TestVerifyRejects(t *testing.T) {
	k := New()
	l := mustParse(t, levelJSONOf(RuleLines, []string{".....", ".....", ".....", ".....", "RR..."}, []string{"GBR", "GBR"}, `{"type":"score","score":3}`))
	res := solveOK(t, k, l, solver.Options{})
	if res.Verdict != solver.Solved {
		t.Fatalf("verdict %s", res.Verdict)
	}
	tamper := map[string]func(r *solver.Result){
		"value":          func(r *solver.Result) { r.Value = solver.Int64(*r.Value + 1) },
		"no value":       func(r *solver.Result) { r.Value = nil },
		"verdict":        func(r *solver.Result) { r.Verdict = solver.Unknown },
		"bad verdict":    func(r *solver.Result) { r.Verdict = "maybe" },
		"score detail":   func(r *solver.Result) { r.Details["score"] = 99 },
		"best_score":     func(r *solver.Result) { r.Details["best_score"] = *r.Value - 1 },
		"bad best_score": func(r *solver.Result) { r.Details["best_score"] = "high" },
		"goal_met":       func(r *solver.Result) { r.Details["goal_met"] = false },
		"pieces_placed":  func(r *solver.Result) { r.Details["pieces_placed"] = 7 },
		"extra detail":   func(r *solver.Result) { r.Details["cleared"] = true },
		"search":         func(r *solver.Result) { r.Details["search"] = "guess" },
		"empty plan":     func(r *solver.Result) { r.Plan = json.RawMessage(`[]`) },
		"bad plan":       func(r *solver.Result) { r.Plan = json.RawMessage(`[{"col":9,"rot":0}]`) },
		"plan field":     func(r *solver.Result) { r.Plan = json.RawMessage(`[{"col":2,"rot":0,"x":1}]`) },
		"long plan": func(r *solver.Result) {
			r.Plan = json.RawMessage(`[{"col":2,"rot":0},{"col":0,"rot":0},{"col":0,"rot":0}]`)
		},
	}
	for name, f := range tamper {
		r := res
		r.Details = map[string]any{}
		for key, v := range res.Details {
			r.Details[key] = v
		}
		f(&r)
		if err := k.Verify(l, r); err == nil {
			t.Fatalf("%s: tampered result accepted", name)
		}
	}
	// A JSON round trip (numbers become float64) still verifies.
	data, _ := json.Marshal(res)
	var back solver.Result
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if err := k.Verify(l, back); err != nil {
		t.Fatalf("round trip: %v", err)
	}
}
