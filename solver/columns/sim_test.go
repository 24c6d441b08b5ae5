package columns

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func mustParse(t testing.TB, js string) *Level {
	t.Helper()
	l, err := Parse([]byte(js))
	if err != nil {
		t.Fatalf("parse %s: %v", js, err)
	}
	return l
}

// level builds a level JSON from rows (top first).
func levelJSONOf(rule string, rows []string, pieces []string, goal string) string {
	b, _ := json.Marshal(rows)
	p, _ := json.Marshal(pieces)
	return `{"kind":"columns","width":` + itoa(len(rows[0])) + `,"height":` + itoa(len(rows)) +
		`,"rule":"` + rule + `","board":` + string(b) + `,"pieces":` + string(p) + `,"goal":` + goal + `}`
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// TestReplayHandCases checks the simulator against outcomes worked out by
// hand: each line direction, a chain of 3 steps, simultaneous lines that
// share a jewel, the groups rule and rotations.
func TestReplayHandCases(t *testing.T) {
	cases := []struct {
		name   string
		rule   string
		rows   []string
		pieces []string
		goal   string
		plan   []Move
		score  int64
		met    bool
		board  []string
	}{{
		name: "horizontal", rule: RuleLines,
		rows:   []string{".....", ".....", ".....", ".....", "RR..."},
		pieces: []string{"GBR"}, goal: `{"type":"clear"}`, plan: []Move{{2, 0}},
		score: 3, board: []string{".....", ".....", ".....", "..G..", "..B.."},
	}, {
		name: "vertical clears the board", rule: RuleLines,
		rows:   []string{"...", "...", "..."},
		pieces: []string{"RRR"}, goal: `{"type":"clear"}`, plan: []Move{{0, 0}},
		score: 3, met: true, board: []string{"...", "...", "..."},
	}, {
		name: "diagonal up-right", rule: RuleLines,
		rows:   []string{".....", ".....", ".....", ".R...", "RGG.."},
		pieces: []string{"BRY"}, goal: `{"type":"score","score":3}`, plan: []Move{{2, 0}},
		score: 3, met: true, board: []string{".....", ".....", "..B..", "..Y..", ".GG.."},
	}, {
		name: "diagonal down-right", rule: RuleLines,
		rows:   []string{".....", ".....", ".....", "...R.", "..GGR"},
		pieces: []string{"BRY"}, goal: `{"type":"score","score":4}`, plan: []Move{{2, 0}},
		score: 3, board: []string{".....", ".....", "..B..", "..Y..", "..GG."},
	}, {
		name: "chain of 3 steps", rule: RuleLines,
		rows:   []string{".....", ".....", ".....", "..E..", "CEBE.", "BBDD."},
		pieces: []string{"XYD"}, goal: `{"type":"target","cell":[4,2]}`, plan: []Move{{4, 0}},
		score: 3*1 + 3*2 + 3*3, met: true,
		board: []string{".....", ".....", ".....", ".....", "....X", "C...Y"},
	}, {
		name: "lines sharing a jewel", rule: RuleLines,
		rows:   []string{".....", ".....", ".....", "RR..."},
		pieces: []string{"RRR"}, goal: `{"type":"clear"}`, plan: []Move{{2, 0}},
		score: 5, met: true, board: []string{".....", ".....", ".....", "....."},
	}, {
		name: "groups: diagonal neighbours form a group", rule: RuleGroups,
		rows:   []string{"....", "....", "....", "RGR."},
		pieces: []string{"BYR"}, goal: `{"type":"score","score":3}`, plan: []Move{{1, 0}},
		score: 3, met: true, board: []string{"....", "....", ".B..", ".Y..", ".G.."}[1:],
	}, {
		name: "lines: the same drop makes no line", rule: RuleLines,
		rows:   []string{"....", "....", "....", "RGR."},
		pieces: []string{"BYR"}, goal: `{"type":"score","score":3}`, plan: []Move{{1, 0}},
		score: 0, board: []string{".B..", ".Y..", ".R..", "RGR."},
	}, {
		name: "rotations", rule: RuleLines,
		rows:   []string{".....", ".....", ".....", "....."},
		pieces: []string{"ABC", "ABC", "ABC"}, goal: `{"type":"survive"}`, plan: []Move{{0, 0}, {2, 1}, {4, 2}},
		score: 0, met: true, board: []string{".....", "A.C.B", "B.A.C", "C.B.A"},
	}, {
		name: "rotations make a diagonal", rule: RuleLines,
		rows:   []string{"...", "...", "...", "..."},
		pieces: []string{"ABC", "ABC", "ABC"}, goal: `{"type":"survive"}`, plan: []Move{{0, 0}, {1, 1}, {2, 2}},
		score: 3, met: true, board: []string{"...", "...", "BCB", "CBC"},
	}, {
		name: "target falls and survives", rule: RuleLines,
		rows:   []string{".....", ".....", ".....", "..G..", ".BB.."},
		pieces: []string{"RGB", "ABG"}, goal: `{"type":"target","cell":[3,2]}`, plan: []Move{{3, 0}},
		score: 3, board: []string{".....", ".....", ".....", "...R.", "..GG."},
	}, {
		name: "target falls, then goes", rule: RuleLines,
		rows:   []string{".....", ".....", ".....", "..G..", ".BB.."},
		pieces: []string{"RGB", "ABG"}, goal: `{"type":"target","cell":[3,2]}`, plan: []Move{{3, 0}, {4, 0}},
		score: 6, met: true, board: []string{".....", ".....", ".....", "....A", "...RB"},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := mustParse(t, levelJSONOf(tc.rule, tc.rows, tc.pieces, tc.goal))
			out, err := Replay(l, tc.plan)
			if err != nil {
				t.Fatal(err)
			}
			if out.Score != tc.score || out.GoalMet != tc.met {
				t.Fatalf("score %d goal %v, want %d %v", out.Score, out.GoalMet, tc.score, tc.met)
			}
			if strings.Join(out.Board, "/") != strings.Join(tc.board, "/") {
				t.Fatalf("board\n%s\nwant\n%s", strings.Join(out.Board, "\n"), strings.Join(tc.board, "\n"))
			}
		})
	}
}

func TestReplayTopOut(t *testing.T) {
	l := mustParse(t, levelJSONOf(RuleLines, []string{"...", "...", "A.."}, []string{"BCD", "BCD"}, `{"type":"survive"}`))
	if _, err := Replay(l, []Move{{0, 0}}); !errors.Is(err, ErrTopOut) {
		t.Fatalf("piece on a column with 2 free cells: err %v, want ErrTopOut", err)
	}
	out, err := Replay(l, []Move{{1, 0}, {2, 0}})
	if err != nil || !out.GoalMet {
		t.Fatalf("exact fit: %v %+v", err, out)
	}
	if _, err := Replay(l, []Move{{1, 0}, {1, 0}}); !errors.Is(err, ErrTopOut) {
		t.Fatalf("second piece on a full column: err %v", err)
	}
	for _, bad := range [][]Move{{{3, 0}}, {{-1, 0}}, {{0, 3}}, {{1, 0}, {2, 0}, {2, 0}}} {
		if _, err := Replay(l, bad); err == nil {
			t.Fatalf("plan %v accepted", bad)
		}
	}
}
