package api

import (
	"errors"
	"testing"

	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/kinds"
)

func TestDecodeJobRequest(t *testing.T) {
	level := `{"kind":"twoends","values":[1,2]}`
	for _, c := range []struct {
		name, body string
		kind       string // the bare form's kind
		level      string
		priority   string
		maxMS      int64
		labels     string
		field      string // of the error; "-" for an error without a field
	}{
		{name: "bare", body: level, kind: "twoends", level: level},
		{name: "wrapped", body: `{"level":` + level + `,"priority":"bulk","budget":{"max_ms":5},"labels":{"a":"b"}}`,
			level: level, priority: "bulk", maxMS: 5, labels: `{"a":"b"}`},
		{name: "wrapped, level only", body: `{"level":` + level + `}`, level: level},
		{name: "bare with a kind that is not a string", body: `{"kind":5}`, level: `{"kind":5}`},
		{name: "unknown option", body: `{"level":` + level + `,"colour":1}`, field: "colour"},
		{name: "priority not a string", body: `{"level":` + level + `,"priority":1}`, field: "priority"},
		{name: "budget field of the wrong type", body: `{"level":` + level + `,"budget":{"max_ms":"x"}}`, field: "budget.max_ms"},
		{name: "unknown budget field", body: `{"level":` + level + `,"budget":{"max_x":1}}`, field: "budget.max_x"},
		{name: "not an object", body: `[1]`, field: "(level)"},
		{name: "invalid JSON", body: `{"kind":`, field: "-"},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, err := decodeJobRequest(kinds.Registry(), []byte(c.body))
			if c.field != "" {
				var fe *solver.FieldError
				if !errors.As(err, &fe) || (c.field != "-" && fe.Field != c.field) {
					t.Fatalf("err = %v; want a field error on %q", err, c.field)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if req.Kind != c.kind || string(req.Level) != c.level || string(req.Priority) != c.priority ||
				req.Budget.MaxMS != c.maxMS || string(req.Labels) != c.labels {
				t.Fatalf("got %+v (level %s, labels %s)", req, req.Level, req.Labels)
			}
		})
	}
}

// FuzzDecodeJobRequest: no body makes the decoder or the level parsers
// panic, and a level handed on with its kind parses exactly as the
// registry parses it without.
func FuzzDecodeJobRequest(f *testing.F) {
	for _, seed := range []string{
		`{"kind":"twoends","values":[3,1,2]}`,
		`{"level":{"kind":"zuma","board":"RRGG","hand":"RG"},"priority":"bulk","budget":{"max_ms":5}}`,
		`{"kind":"sheep","tiles":[{"id":"a","type":1,"x":0,"y":0,"layer":1}]}`,
		`{"kind":null}`, `{"kind":"chess"}`, `{`, `[]`, `{"level":null,"labels":7}`,
	} {
		f.Add(seed)
	}
	reg := kinds.Registry()
	f.Fuzz(func(t *testing.T, body string) {
		req, err := decodeJobRequest(kinds.Registry(), []byte(body))
		if err != nil || req.Kind == "" {
			return
		}
		got, gotErr := reg.ParseAs(req.Kind, req.Level)
		want, wantErr := reg.Parse(req.Level)
		if (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("ParseAs err %v, Parse err %v", gotErr, wantErr)
		}
		if gotErr == nil && string(got.Canonical()) != string(want.Canonical()) {
			t.Fatalf("ParseAs %s, Parse %s", got.Canonical(), want.Canonical())
		}
	})
}
