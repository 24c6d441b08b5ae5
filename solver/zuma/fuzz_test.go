package zuma

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/puzzled/puzzled/solver"
)

// FuzzParse: Parse never panics; what it accepts is valid and its
// canonical form parses back to itself.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"kind":"zuma","board":"WWRRBBWW","hand":"WRBRW"}`,
		`{"kind":"zuma","board":"RRWWRRBBRR"}`,
		`{"kind":"zuma","board":"BBRRGGBRRG","ammo":"RGBRB"}`,
		`{"kind":"zuma","board":"RRR"}`,
		`{"kind":"zuma","board":"AB","hand":null,"ammo":""}`,
		`[]`, `null`, `{"kind":"zuma","board":"\u0041"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		lvl, err := Parse(data)
		if err != nil {
			return
		}
		if err := validBoard(lvl.Board); err != "" {
			t.Fatalf("accepted %q: %s", lvl.Board, err)
		}
		again, err := Parse(lvl.Canonical())
		if err != nil || string(again.Canonical()) != string(lvl.Canonical()) {
			t.Fatalf("canonical %s does not parse to itself: %v", lvl.Canonical(), err)
		}
	})
}

// validBoard returns why b is not a stable board, or "".
func validBoard(b string) string {
	for i := 0; i < len(b); i++ {
		if b[i] < 'A' || b[i] > 'Z' {
			return "not a color"
		}
		if i >= 2 && b[i] == b[i-1] && b[i] == b[i-2] {
			return "run of 3+"
		}
	}
	return ""
}

// FuzzReplay: replaying any plan on any valid board never panics, never
// leaves a run of 3+, agrees with the oracle's simulator, and counts the
// vanished balls exactly.
func FuzzReplay(f *testing.F) {
	f.Add("RRWWRRBBRR", []byte{9, 'W', 7, 'B'})
	f.Add("WWRRBBWW", []byte{2, 'R', 200, 'B', 0, 'W'})
	f.Add("A", []byte{0, 'A', 0, 'A', 5, 'z'})
	f.Fuzz(func(t *testing.T, board string, moves []byte) {
		if len(board) == 0 || len(board) > 64 || validBoard(board) != "" {
			return
		}
		lvl := &Level{Board: board, Mode: ModeUnlimited}
		var plan []Move
		for i := 0; i+1 < len(moves); i += 2 {
			plan = append(plan, Move{At: int(moves[i]), Ball: string(rune(moves[i+1]))})
		}
		out, err := Replay(lvl, plan)
		// Replay move by move with the oracle to find the first bad move.
		b := board
		for i, mv := range plan {
			c := mv.Ball[0]
			if len(mv.Ball) != 1 || c < 'A' || c > 'Z' || mv.At > len(b) {
				if err == nil {
					t.Fatalf("move %d %+v on %q accepted", i, mv, b)
				}
				return
			}
			b = oracleInsert(b, mv.At, c)
		}
		if err != nil {
			t.Fatalf("valid plan rejected: %v", err)
		}
		if out.Board != b || validBoard(out.Board) != "" {
			t.Fatalf("replay ends with %q, oracle %q", out.Board, b)
		}
		if out.Vanished != len(board)+len(plan)-len(out.Board) {
			t.Fatalf("vanished %d, balls in %d+%d, left %d", out.Vanished, len(board), len(plan), len(out.Board))
		}
	})
}

// FuzzSolveHand: small hand levels solve to a verified result that
// matches the oracle.
func FuzzSolveHand(f *testing.F) {
	f.Add("WWRRBBWW", "WRBRW")
	f.Add("RRWWRRBBRR", "WB")
	f.Fuzz(func(t *testing.T, board, hand string) {
		data, _ := json.Marshal(map[string]string{"kind": "zuma", "board": board, "hand": hand})
		lvl, err := Parse(data)
		if err != nil || len(lvl.Board) > 12 || len(lvl.Hand) > 4 {
			return
		}
		res, err := New().Solve(context.Background(), lvl, solver.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := Verify(lvl, res); err != nil {
			t.Fatal(err)
		}
		if want := oracleHand(lvl.Board, lvl.Hand); value(res) != want {
			t.Fatalf("%s: %d, oracle %d", lvl.Canonical(), value(res), want)
		}
	})
}
