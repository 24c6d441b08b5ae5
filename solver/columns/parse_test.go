package columns

import (
	"errors"
	"strings"
	"testing"

	"github.com/puzzled/puzzled/solver"
)

func TestParseCanonical(t *testing.T) {
	l := mustParse(t, `{"pieces":["RGB"],"goal":{"score":7,"type":"score"},"kind":"columns",
		"height":3,"width":3,"board":["...","...","RG."]}`)
	want := `{"kind":"columns","width":3,"height":3,"rule":"lines","board":["...","...","RG."],"pieces":["RGB"],"goal":{"type":"score","score":7}}`
	if got := string(l.Canonical()); got != want {
		t.Fatalf("canonical\n%s\nwant\n%s", got, want)
	}
	again := mustParse(t, want)
	if string(again.Canonical()) != want {
		t.Fatalf("canonical is not a fixed point: %s", again.Canonical())
	}
	empty := mustParse(t, `{"kind":"columns","width":3,"height":3,"pieces":["RGB"],"goal":{"type":"target","cell":[2,0]},"board":["...","...","R.."]}`)
	if !strings.Contains(string(empty.Canonical()), `"goal":{"type":"target","cell":[2,0]}`) {
		t.Fatalf("target canonical: %s", empty.Canonical())
	}
	noBoard := mustParse(t, `{"kind":"columns","width":3,"height":3,"pieces":["RGB"],"goal":{"type":"survive"}}`)
	if !strings.Contains(string(noBoard.Canonical()), `"board":["...","...","..."]`) {
		t.Fatalf("missing board is not empty: %s", noBoard.Canonical())
	}
}

func TestParseErrors(t *testing.T) {
	const head = `"kind":"columns","width":3,"height":3,`
	const ok = `"board":["...","...","RG."],"pieces":["RGB"],"goal":{"type":"clear"}`
	cases := []struct{ in, field, reason string }{
		{`{` + head + ok + `,"extra":1}`, "extra", "unknown field"},
		{`{"kind":"zuma","width":3,"height":3,` + ok + `}`, "kind", "must be"},
		{`{"kind":"columns","width":2,"height":3,` + ok + `}`, "width", "3–16"},
		{`{"kind":"columns","width":17,"height":3,` + ok + `}`, "width", "3–16"},
		{`{"kind":"columns","width":3,"height":33,` + ok + `}`, "height", "3–32"},
		{`{` + head + `"rule":"blobs",` + ok + `}`, "rule", "lines"},
		{`{` + head + `"board":["...","RG."],"pieces":["RGB"],"goal":{"type":"clear"}}`, "board", "rows"},
		{`{` + head + `"board":["...","....","RG."],"pieces":["RGB"],"goal":{"type":"clear"}}`, "board[1]", "width"},
		{`{` + head + `"board":["...","...","Rg."],"pieces":["RGB"],"goal":{"type":"clear"}}`, "board[2]", "A–Z"},
		{`{` + head + `"board":["...","R..",".G."],"pieces":["RGB"],"goal":{"type":"clear"}}`, "board[1]", "settled"},
		{`{` + head + `"board":["...","...","RRR"],"pieces":["RGB"],"goal":{"type":"clear"}}`, "board[2]", "run of 3+ 'R' — such runs vanish at once"},
		{`{` + head + `"board":["..R",".RG","RGB"],"pieces":["RGB"],"goal":{"type":"clear"}}`, "board[0]", "run of 3+ 'R'"},
		{`{` + head + `"rule":"groups","board":["...","R..","RR."],"pieces":["RGB"],"goal":{"type":"clear"}}`, "board[1]", "group of 3+ 'R'"},
		{`{` + head + `"board":["...","...","RG."],"pieces":[],"goal":{"type":"clear"}}`, "pieces", "1–1000"},
		{`{` + head + `"board":["...","...","RG."],"pieces":["RGB","RG"],"goal":{"type":"clear"}}`, "pieces[1]", "3 jewels"},
		{`{` + head + `"board":["...","...","RG."],"pieces":["RG1"],"goal":{"type":"clear"}}`, "pieces[0]", "3 jewels"},
		{`{` + head + `"board":["...","...","RG."],"pieces":["RGB"]}`, "goal", "missing"},
		{`{` + head + `"board":["...","...","RG."],"pieces":["RGB"],"goal":{"type":"win"}}`, "goal.type", "clear"},
		{`{` + head + `"board":["...","...","RG."],"pieces":["RGB"],"goal":{"type":"score"}}`, "goal.score", "missing"},
		{`{` + head + `"board":["...","...","RG."],"pieces":["RGB"],"goal":{"type":"score","score":0}}`, "goal.score", "1–"},
		{`{` + head + `"board":["...","...","RG."],"pieces":["RGB"],"goal":{"type":"clear","score":3}}`, "goal.score", "only"},
		{`{` + head + `"board":["...","...","RG."],"pieces":["RGB"],"goal":{"type":"target"}}`, "goal.cell", "missing"},
		{`{` + head + `"board":["...","...","RG."],"pieces":["RGB"],"goal":{"type":"target","cell":[3,0]}}`, "goal.cell", "outside"},
		{`{` + head + `"board":["...","...","RG."],"pieces":["RGB"],"goal":{"type":"target","cell":[2,2]}}`, "goal.cell", "empty"},
		{`{` + head + `"board":["...","...","RG."],"pieces":["RGB"],"goal":{"type":"survive","cell":[2,0]}}`, "goal.cell", "only"},
		{`{` + head + `"width":"3"}`, "width", "number"},
		{`[1,2]`, "(level)", "must be"},
		{`{` + head + ok + `} {}`, "", "after"},
	}
	for _, tc := range cases {
		_, err := Parse([]byte(tc.in))
		var fe *solver.FieldError
		if !errors.As(err, &fe) {
			t.Fatalf("%s: err %v, want a FieldError", tc.in, err)
		}
		if fe.Field != tc.field || !strings.Contains(fe.Reason, tc.reason) {
			t.Fatalf("%s: got %q, want field %q and reason containing %q", tc.in, err, tc.field, tc.reason)
		}
	}
}

func TestParseTooManyPieces(t *testing.T) {
	pieces := make([]string, MaxPieces+1)
	for i := range pieces {
		pieces[i] = "ABC"
	}
	_, err := Parse([]byte(levelJSONOf(RuleLines, []string{"...", "...", "..."}, pieces, `{"type":"survive"}`)))
	if err == nil || !strings.Contains(err.Error(), "at most") {
		t.Fatalf("err %v", err)
	}
}
