package kinds_test

import (
	"encoding/json"
	"testing"

	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/kinds"
	"github.com/puzzled/puzzled/solver/zuma"
)

// FuzzStates: States never panics on any plan, and when it succeeds it
// lists one state per move plus the start, numbered in order.
func FuzzStates(f *testing.F) {
	levels := []string{
		`{"kind":"zuma","board":"RRWWRRBBRR","hand":"WB"}`,
		`{"kind":"zuma","board":"WWRRBBWW","ammo":"RB"}`,
		`{"kind":"zuma","board":"RRWWRRBBRR"}`,
		`{"kind":"twoends","values":[3,1,2]}`,
		`{"kind":"sheep","slots":7,"tiles":[{"id":"a","type":1,"covers":["b"]},{"id":"b","type":1,"covers":[]},{"id":"c","type":1,"covers":[]}]}`,
		`{"kind":"columns","width":3,"height":4,"rule":"lines","board":["...","...","...","..."],"pieces":["AAA","ABC"],"goal":{"type":"clear"}}`,
	}
	for i, plan := range []string{`[{"at":1,"ball":"W"}]`, `[{"at":0,"ball":"R"}]`, `[{"at":9,"ball":"Q"}]`, `"LRL"`, `["a","c","b"]`, `[{"col":0,"rot":2},{"col":1,"rot":1}]`} {
		f.Add(uint8(i), []byte(plan))
	}
	reg := kinds.Registry()
	f.Fuzz(func(t *testing.T, which uint8, plan []byte) {
		lvl, err := reg.Parse([]byte(levels[int(which)%len(levels)]))
		if err != nil {
			t.Fatal(err)
		}
		states, err := reg.KindOf(lvl).(solver.Stepper).States(lvl, json.RawMessage(plan))
		if err != nil {
			return
		}
		for k, st := range states {
			if st.Step != k || st.Text == "" {
				t.Fatalf("state %d: %+v", k, st)
			}
			// zuma: removing what the move cleared from the board with the
			// ball inserted gives the next board.
			if c, ok := st.Cleared.(zuma.Cleared); ok {
				if got := c.Inserted[:c.From] + c.Inserted[c.To:]; got != st.View.(zuma.StateView).Board {
					t.Fatalf("state %d: cleared %+v leaves %q, board is %q", k, c, got, st.View.(zuma.StateView).Board)
				}
			}
		}
	})
}
