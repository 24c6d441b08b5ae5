package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/puzzled/puzzled/api/wire"
	"github.com/puzzled/puzzled/solver/difficulty"
)

// TestPlayoutsFlag: --playouts of submit (NDJSON body with the option in
// the query, and the object form that labels need) and of job reaches the
// worker: the figures have that many playouts, or none for 0.
func TestPlayoutsFlag(t *testing.T) {
	t.Parallel()
	url, _ := startStack(t)
	write := func(t *testing.T, level string) string {
		path := filepath.Join(t.TempDir(), "level.json")
		if err := os.WriteFile(path, []byte(level), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	// playoutsOf returns the figures' playouts, -1 for no figures.
	playoutsOf := func(t *testing.T, raw json.RawMessage) int {
		if len(raw) == 0 {
			return -1
		}
		var f difficulty.Figures
		if err := json.Unmarshal(raw, &f); err != nil || f.Random == nil || f.Random.Games != f.Playouts {
			t.Fatalf("figures %s: %v", raw, err)
		}
		return f.Playouts
	}
	for _, tc := range []struct {
		name  string
		args  []string
		level string
		want  int
	}{
		{"submit", []string{"submit", "--wait", "--playouts", "120"}, `{"kind":"zuma","board":"RRWWBB","hand":"RWB"}`, 120},
		{"submit with a label", []string{"submit", "--wait", "--playouts", "130", "--label", "team:design"},
			`{"kind":"zuma","board":"BBRRWWRR","hand":"BRWR"}`, 130},
		{"submit without the flag (bulk: none)", []string{"submit", "--wait"}, `{"kind":"zuma","board":"RWWRBB","hand":"WRB"}`, -1},
		{"job", []string{"job", "--playouts", "140"}, `{"kind":"zuma","board":"WWBBRRYY","hand":"WBRY"}`, 140},
		{"job with none", []string{"job", "--playouts", "0"}, `{"kind":"zuma","board":"WWRRBBWW","hand":"WRBRW"}`, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append(append([]string{"--server", url}, tc.args...), write(t, tc.level))
			code, stdout, stderr := runCLI(t, "", args...)
			if code != exitOK {
				t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
			}
			var raw json.RawMessage
			if tc.args[0] == "job" {
				var sol wire.Solution
				if err := json.Unmarshal([]byte(stdout), &sol); err != nil || sol.Result == nil {
					t.Fatalf("job output %s: %v", stdout, err)
				}
				raw = sol.Difficulty
			} else {
				var sum batchSummary
				if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
					t.Fatalf("summary %q: %v", stdout, err)
				}
				code, stdout, stderr = runCLI(t, "", "--server", url, "results", strconv.FormatInt(sum.ID, 10))
				results := decodeLines[wire.BatchResult](t, strings.NewReader(stdout))
				if code != exitOK || len(results) != 1 || results[0].Result == nil {
					t.Fatalf("results: exit %d %s %s", code, stdout, stderr)
				}
				raw = results[0].Result.Difficulty
			}
			if got := playoutsOf(t, raw); got != tc.want {
				t.Fatalf("figures with %d playouts, want %d", got, tc.want)
			}
		})
	}
	if code, _, stderr := runCLI(t, "", "--server", url, "job", "--playouts", "200000",
		write(t, `{"kind":"zuma","board":"RRWWBB","hand":"RWB"}`)); code == exitOK || !strings.Contains(stderr, "difficulty.playouts") {
		t.Fatalf("--playouts 200000: exit %d, %s", code, stderr)
	}
}

// TestSolvePlayouts: the local solve rates levels only when --playouts
// asks, with that many playouts, and refuses a count out of range.
func TestSolvePlayouts(t *testing.T) {
	t.Parallel()
	const levels = `{"kind":"zuma","board":"WWRRBBWW","hand":"WRBRW"}` + "\n" +
		`{"kind":"zuma","board":"WRRBBW","hand":"RB"}` + "\n" + // unsolvable: rated, no score
		`{"kind":"zuma","board":"RRWWRRBBRR"}` + "\n" // unlimited: not rated
	type line struct {
		Verdict    string          `json:"verdict"`
		Difficulty json.RawMessage `json:"difficulty"`
		Error      string          `json:"error"`
	}
	for _, tc := range []struct {
		flag string
		want []int // playouts of each line's figures, -1 for none
	}{
		{"", []int{-1, -1, -1}},
		{"--playouts=0", []int{-1, -1, -1}},
		{"--playouts=250", []int{250, 250, -1}},
	} {
		t.Run(tc.flag, func(t *testing.T) {
			args := []string{"solve", "-"}
			if tc.flag != "" {
				args = []string{"solve", tc.flag, "-"}
			}
			code, stdout, stderr := runCLI(t, levels, args...)
			lines := decodeLines[line](t, strings.NewReader(stdout))
			if code != exitOK || len(lines) != 3 {
				t.Fatalf("exit %d, %d lines: %s", code, len(lines), stderr)
			}
			for i, l := range lines {
				got := -1
				if len(l.Difficulty) > 0 {
					var f difficulty.Figures
					if err := json.Unmarshal(l.Difficulty, &f); err != nil || f.Random == nil || f.Random.Games != f.Playouts {
						t.Fatalf("line %d: figures %s: %v", i, l.Difficulty, err)
					}
					if (f.Score != nil) != (l.Verdict == "solved") {
						t.Fatalf("line %d (%s): score %v", i, l.Verdict, f.Score)
					}
					got = f.Playouts
				}
				if got != tc.want[i] {
					t.Fatalf("line %d: figures with %d playouts, want %d", i, got, tc.want[i])
				}
			}
		})
	}
	for _, bad := range []string{"--playouts=-1", "--playouts=100001"} {
		if code, _, stderr := runCLI(t, levels, "solve", bad, "-"); code != exitError || !strings.Contains(stderr, "--playouts") {
			t.Fatalf("%s: exit %d, %s", bad, code, stderr)
		}
	}
}
