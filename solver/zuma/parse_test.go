package zuma

import (
	"errors"
	"strings"
	"testing"

	"github.com/puzzled/puzzled/solver"
)

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, canonical, field, reason string
	}{
		{`{"kind":"zuma","board":"WWRRBBWW","hand":"WRBRW"}`, `{"kind":"zuma","board":"WWRRBBWW","hand":"BRRWW"}`, "", ""},
		{`{"hand":"A","board":"AB","kind":"zuma"}`, `{"kind":"zuma","board":"AB","hand":"A"}`, "", ""},
		{`{"kind":"zuma","board":"RRWWRRBBRR"}`, `{"kind":"zuma","board":"RRWWRRBBRR"}`, "", ""},
		{`{"kind":"zuma","board":"BBRRGGBRRG","ammo":"RGBRB"}`, `{"kind":"zuma","board":"BBRRGGBRRG","ammo":"RGBRB"}`, "", ""},
		{`{"kind":"zuma","board":"AB","hand":""}`, `{"kind":"zuma","board":"AB","hand":""}`, "", ""},
		{`{"kind":"zuma","board":"AB","hand":null}`, `{"kind":"zuma","board":"AB"}`, "", ""},
		{`{"kind":"zuma","board":"RRWRRRB"}`, "", "board[5]", "run of 3+ 'R'"},
		{`{"kind":"zuma","board":"RRr"}`, "", "board[2]", "not a color"},
		{`{"kind":"zuma","board":"RRé"}`, "", "board[2]", "'é' is not a color"},
		{`{"kind":"zuma","board":""}`, "", "board", "at least one ball"},
		{`{"kind":"zuma"}`, "", "board", "missing"},
		{`{"kind":"zuma","board":"AB","hand":"A","ammo":"B"}`, "", "ammo", "mutually exclusive"},
		{`{"kind":"zuma","board":"AB","hand":"AAAAAAAAAAAAAAAAA"}`, "", "hand", "at most 16"},
		{`{"kind":"zuma","board":"AB","ammo":"a"}`, "", "ammo[0]", "not a color"},
		{`{"kind":"zuma","board":"` + strings.Repeat("AB", 33) + `","hand":"A"}`, "", "board", "at most 64 in hand mode"},
		{`{"kind":"zuma","board":"` + strings.Repeat("AB", 5001) + `"}`, "", "board", "at most 10000"},
		{`{"kind":"zuma","board":"AB","colour":"A"}`, "", "colour", "unknown field"},
		{`{"kind":"sheep","board":"AB"}`, "", "kind", "must be"},
		{`{"kind":"zuma","board":7}`, "", "board", "must be a string"},
		{`{"kind":"zuma","board":"AB"} {}`, "", "", "after the level"},
	}
	for _, tt := range tests {
		t.Run(tt.in[:min(len(tt.in), 60)], func(t *testing.T) {
			t.Parallel()
			lvl, err := Parse([]byte(tt.in))
			if tt.reason == "" {
				if err != nil {
					t.Fatal(err)
				}
				if got := string(lvl.Canonical()); got != tt.canonical {
					t.Fatalf("canonical %s, want %s", got, tt.canonical)
				}
				again, err := Parse(lvl.Canonical())
				if err != nil || string(again.Canonical()) != tt.canonical {
					t.Fatalf("canonical form does not parse to itself: %v", err)
				}
				return
			}
			var fe *solver.FieldError
			if !errors.As(err, &fe) || fe.Field != tt.field || !strings.Contains(fe.Reason, tt.reason) {
				t.Fatalf("error %v, want field %q reason containing %q", err, tt.field, tt.reason)
			}
		})
	}
}

func TestSimulator(t *testing.T) {
	t.Parallel()
	tests := []struct {
		board string
		at    int
		ball  byte
		want  string
		gone  int
	}{
		{"WWRRBBWW", 2, 'R', "", 0}, // filled below
		{"AB", 0, 'C', "CAB", 0},
		{"AAB", 0, 'A', "B", 3},
		{"BAAB", 1, 'A', "", 0},
		{"BBAAB", 2, 'A', "", 6},
		{"RRWWRRBBRWR", 8, 'B', "", 12},
		{"ABBAAC", 3, 'B', "AAAC", 0},
		{"CAABBAAC", 3, 'B', "", 0},
	}
	tests[0].want, tests[0].gone = "WWBBWW", 3
	tests[3].want, tests[3].gone = "BB", 3
	tests[6].want, tests[6].gone = "C", 6
	tests[7].want, tests[7].gone = "CC", 7
	for _, tt := range tests {
		got, gone := insert(nil, []byte(tt.board), tt.at, tt.ball)
		if string(got) != tt.want || gone != tt.gone {
			t.Errorf("%s + %c@%d = %s (%d gone), want %s (%d)", tt.board, tt.ball, tt.at, got, gone, tt.want, tt.gone)
		}
		if o := oracleInsert(tt.board, tt.at, tt.ball); o != tt.want {
			t.Errorf("oracle: %s + %c@%d = %s, want %s", tt.board, tt.ball, tt.at, o, tt.want)
		}
	}
}
