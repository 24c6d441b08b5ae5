package kinds_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/kinds"
)

// TestStatesOfSolvedLevels solves one level of every kind and checks the
// first and last canonical texts of its plan, and that there is one state
// per move plus the start.
func TestStatesOfSolvedLevels(t *testing.T) {
	t.Parallel()
	cases := []struct {
		level      string
		first      string
		lastPrefix string
	}{
		{`{"kind":"zuma","board":"RRWWRRBBRR","hand":"WB"}`,
			"zuma 0\nboard RRWWRRBBRR\nhand BW", "zuma 2\nboard -\nhand -"},
		{`{"kind":"zuma","board":"WWRRBBWW","ammo":"RB"}`,
			"zuma 0\nboard WWRRBBWW\nammo RB", "zuma 2\nboard -\nammo -"},
		{`{"kind":"twoends","values":[3,1,2]}`,
			"twoends 0\nrow 3 1 2\nfirst 0\nsecond 0\nturn first", "twoends 3\nrow -\nfirst 4\nsecond 2\nturn -"},
		{`{"kind":"sheep","slots":7,"tiles":[{"id":"a","type":1,"covers":["b"]},{"id":"b","type":1,"covers":[]},{"id":"c","type":1,"covers":[]}]}`,
			"sheep 0\ntray -\nleft 3\nclickable a c\nremoved -", "sheep 3\ntray -\nleft 0\nclickable -\nremoved a b c"},
		{`{"kind":"columns","width":3,"height":4,"rule":"lines","board":["...","...","...","..."],"pieces":["AAA"],"goal":{"type":"clear"}}`,
			"columns 0\nscore 0\ngoal open\nboard .../.../.../...\nnext AAA", "columns 1\nscore 3\ngoal met\nboard .../.../.../...\nnext -"},
	}
	for _, tc := range cases {
		t.Run(tc.level, func(t *testing.T) {
			t.Parallel()
			states := statesOf(t, tc.level)
			if got := states[0].Text; got != tc.first {
				t.Errorf("state 0:\n%s\nwant\n%s", got, tc.first)
			}
			if got := states[len(states)-1].Text; !strings.HasPrefix(got, tc.lastPrefix) {
				t.Errorf("last state:\n%s\nwant\n%s", got, tc.lastPrefix)
			}
			for k, st := range states {
				if st.Step != k || (k > 0) != (st.Cleared != nil) {
					t.Errorf("state %d: step %d, cleared %v", k, st.Step, st.Cleared)
				}
			}
		})
	}
}

// statesOf solves level and lists the states of its plan.
func statesOf(t *testing.T, level string) []solver.State {
	t.Helper()
	reg := kinds.Registry()
	lvl, err := reg.Parse([]byte(level))
	if err != nil {
		t.Fatal(err)
	}
	k := reg.KindOf(lvl)
	res, err := k.Solve(context.Background(), lvl, solver.Options{})
	if err != nil || res.Verdict != solver.Solved {
		t.Fatalf("solve: %v %v", res.Verdict, err)
	}
	states, err := k.(solver.Stepper).States(lvl, res.Plan)
	if err != nil {
		t.Fatal(err)
	}
	var moves []json.RawMessage
	if err := json.Unmarshal(res.Plan, &moves); err == nil && len(states) != len(moves)+1 {
		t.Fatalf("%d states for %d moves", len(states), len(moves))
	}
	return states
}

// TestStatesRejectBadPlans: States fails where the simulator fails.
func TestStatesRejectBadPlans(t *testing.T) {
	t.Parallel()
	cases := []struct{ level, plan string }{
		{`{"kind":"zuma","board":"RRWWRRBBRR","hand":"WB"}`, `[{"at":0,"ball":"R"}]`},
		{`{"kind":"zuma","board":"RRWWRRBBRR","hand":"WB"}`, `[{"at":99,"ball":"W"}]`},
		{`{"kind":"twoends","values":[3,1,2]}`, `"LXR"`},
		{`{"kind":"twoends","values":[3,1,2]}`, `"LLRR"`},
		{`{"kind":"sheep","slots":7,"tiles":[{"id":"a","type":1,"covers":["b"]},{"id":"b","type":1,"covers":[]},{"id":"c","type":1,"covers":[]}]}`, `["b"]`},
		{`{"kind":"columns","width":3,"height":4,"rule":"lines","board":["...","...","...","..."],"pieces":["ABC"],"goal":{"type":"clear"}}`, `[{"col":3,"rot":0}]`},
	}
	for _, tc := range cases {
		reg := kinds.Registry()
		lvl, err := reg.Parse([]byte(tc.level))
		if err != nil {
			t.Fatal(err)
		}
		k := reg.KindOf(lvl)
		if _, err := k.(solver.Stepper).States(lvl, json.RawMessage(tc.plan)); err == nil {
			t.Errorf("%s with plan %s: no error", tc.level, tc.plan)
		}
	}
}

// TestStatesWithoutPlan: an unsolvable result has no plan (absent or JSON
// null); its one state is the level as given.
func TestStatesWithoutPlan(t *testing.T) {
	t.Parallel()
	reg := kinds.Registry()
	for _, level := range []string{
		`{"kind":"zuma","board":"WRRBBW","hand":"RB"}`,
		`{"kind":"twoends","values":[3,1,2]}`,
		`{"kind":"sheep","slots":7,"tiles":[{"id":"a","type":1,"covers":["b"]},{"id":"b","type":2,"covers":[]}]}`,
		`{"kind":"columns","width":3,"height":4,"rule":"lines","board":["...","...","...","..."],"pieces":["ABC"],"goal":{"type":"clear"}}`,
	} {
		lvl, err := reg.Parse([]byte(level))
		if err != nil {
			t.Fatal(err)
		}
		for _, plan := range []json.RawMessage{nil, json.RawMessage("null")} {
			states, err := reg.KindOf(lvl).(solver.Stepper).States(lvl, plan)
			if err != nil || len(states) != 1 || states[0].Step != 0 || states[0].Cleared != nil {
				t.Errorf("%s, plan %q: %v %+v", level, plan, err, states)
			}
		}
	}
}
