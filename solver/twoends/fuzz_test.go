package twoends

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"testing"

	"github.com/puzzled/puzzled/solver"
)

// FuzzParse: Parse never panics; what it accepts has a canonical form that
// parses back to itself, and small levels solve and verify.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"kind":"twoends","values":[3,1,2]}`,
		`{"kind":"twoends","values":[]}`,
		`{"kind":"twoends","values":[1.5]}`,
		`{"kind":"twoends","values":[-100000000000,100000000000]}`,
		`{"kind":"twoends","values":[1],"x":1}`,
		`{"values":[1]}`,
		`[1,2]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		lvl, err := New().Parse(data)
		if err != nil {
			return
		}
		c := lvl.Canonical()
		again, err := New().Parse(c)
		if err != nil || string(again.Canonical()) != string(c) {
			t.Fatalf("canonical %s does not parse back: %v", c, err)
		}
		if l := lvl.(*Level); len(l.values) <= 200 {
			res := solveVerified(t, l)
			if want := dpTable(l.values)[0][len(l.values)-1]; *res.Value != want {
				t.Fatalf("%v: value %d, DP %d", l.values, *res.Value, want)
			}
		}
	})
}

// FuzzReplay: the simulator never panics, and on a legal line the totals
// add up to the sum of the values.
func FuzzReplay(f *testing.F) {
	f.Add([]byte{3, 1, 2}, []byte(`"LRL"`))
	f.Add([]byte{3, 1, 2}, []byte(`"LR"`))
	f.Add([]byte{7}, []byte(`"X"`))
	f.Add([]byte{}, []byte(`"L"`))
	f.Fuzz(func(t *testing.T, raw []byte, plan []byte) {
		values := make([]int64, len(raw))
		var sum int64
		for i, b := range raw {
			values[i] = int64(int8(b))
			sum += values[i]
		}
		l, err := NewLevel(values)
		if err != nil {
			return
		}
		first, second, err := Replay(l, json.RawMessage(plan))
		if err == nil && first+second != sum {
			t.Fatalf("%v %s: totals %d+%d, sum %d", values, plan, first, second, sum)
		}
	})
}

// FuzzSolve: a differential against the DP on arbitrary short sequences of
// int32 values (wide range, many ties of sign), line included.
func FuzzSolve(f *testing.F) {
	f.Add([]byte{0, 0, 0, 3, 0, 0, 0, 1, 0, 0, 0, 2})
	f.Add([]byte{255, 255, 255, 255, 1, 0, 0, 0})
	f.Fuzz(func(t *testing.T, raw []byte) {
		n := min(len(raw)/4, 80)
		if n == 0 {
			return
		}
		a := make([]int64, n)
		for i := range a {
			a[i] = int64(int32(binary.LittleEndian.Uint32(raw[4*i:])))
		}
		checkAgainstDP(t, a)
		// Runs of 3 nodes each, resumed from the last checkpoint, must land
		// on the uninterrupted result. Budgets count nodes across resumes.
		k := New()
		l := mustLevel(t, a)
		want := solveVerified(t, l)
		var blob []byte
		var nodes int64
		for range 4*n + 4 {
			res, err := k.Solve(context.Background(), l, solver.Options{
				Budget: solver.Budget{MaxNodes: nodes + 3}, CheckpointEvery: 1, Resume: blob,
				Checkpoint: func(b []byte) { blob = append([]byte(nil), b...) },
			})
			if err != nil {
				t.Fatal(err)
			}
			if err := k.Verify(l, res); err != nil {
				t.Fatal(err)
			}
			if res.Verdict == solver.Solved {
				if string(res.Plan) != string(want.Plan) || *res.Value != *want.Value {
					t.Fatalf("%v: resumed %s/%d, want %s/%d", a, res.Plan, *res.Value, want.Plan, *want.Value)
				}
				return
			}
			nodes = res.Stats.Nodes
		}
		t.Fatalf("%v: not solved after %d resumed slices of 3 nodes", a, 4*n+4)
	})
}
