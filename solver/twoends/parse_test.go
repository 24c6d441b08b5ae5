package twoends

import (
	"errors"
	"strings"
	"testing"

	"github.com/puzzled/puzzled/solver"
)

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		in        string
		canonical string // "" when an error is expected
		field     string // field named by the error
	}{
		{"example", `{"kind":"twoends","values":[3,1,2]}`, `{"kind":"twoends","values":[3,1,2]}`, ""},
		{"spaces, negative, order", ` { "values" : [ -5 , 0 ,7 ], "kind":"twoends" } `, `{"kind":"twoends","values":[-5,0,7]}`, ""},
		{"bounds", `{"kind":"twoends","values":[100000000000,-100000000000]}`, `{"kind":"twoends","values":[100000000000,-100000000000]}`, ""},
		{"empty", `{"kind":"twoends","values":[]}`, "", "values"},
		{"missing", `{"kind":"twoends"}`, "", "values"},
		{"null", `{"kind":"twoends","values":null}`, "", "values"},
		{"null element", `{"kind":"twoends","values":[null,2]}`, "", "values[0]"},
		{"null later", `{"kind":"twoends","values":[1, 2,null ]}`, "", "values[2]"},
		{"too large", `{"kind":"twoends","values":[1,100000000001]}`, "", "values[1]"},
		{"too small", `{"kind":"twoends","values":[-100000000001]}`, "", "values[0]"},
		{"fraction", `{"kind":"twoends","values":[1,2,1.5]}`, "", "values[2]"},
		{"exponent", `{"kind":"twoends","values":[1e3]}`, "", "values[0]"},
		{"int64 overflow", `{"kind":"twoends","values":[0,99999999999999999999]}`, "", "values[1]"},
		{"string", `{"kind":"twoends","values":["1"]}`, "", "values[0]"},
		{"not an array", `{"kind":"twoends","values":3}`, "", "values"},
		{"unknown field", `{"kind":"twoends","values":[1],"hand":"R"}`, "", "hand"},
		{"wrong kind", `{"kind":"zuma","values":[1]}`, "", "kind"},
		{"trailing", `{"kind":"twoends","values":[1]} {}`, "", ""},
		{"not json", `{"kind":"twoends","values":[1,`, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			lvl, err := New().Parse([]byte(tc.in))
			if tc.canonical != "" {
				if err != nil {
					t.Fatalf("Parse(%s): %v", tc.in, err)
				}
				if got := string(lvl.Canonical()); got != tc.canonical {
					t.Fatalf("Canonical = %s, want %s", got, tc.canonical)
				}
				if lvl.Kind() != Name {
					t.Fatalf("Kind = %q", lvl.Kind())
				}
				return
			}
			var fe *solver.FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("Parse(%s) = %v, want a *solver.FieldError", tc.in, err)
			}
			if fe.Field != tc.field {
				t.Fatalf("Parse(%s): field %q (%v), want %q", tc.in, fe.Field, err, tc.field)
			}
		})
	}
}

func TestParseLength(t *testing.T) {
	t.Parallel()
	in := `{"kind":"twoends","values":[` + strings.Repeat("1,", MaxValues) + `1]}`
	_, err := New().Parse([]byte(in))
	var fe *solver.FieldError
	if !errors.As(err, &fe) || fe.Field != "values" || !strings.Contains(fe.Reason, "at most") {
		t.Fatalf("%d values: %v, want a length error on values", MaxValues+1, err)
	}
}
