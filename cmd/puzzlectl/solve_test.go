package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/puzzled/puzzled/solver/twoends/twoendstest"
)

type solveOut struct {
	File    string          `json:"file"`
	Line    int             `json:"line"`
	Kind    string          `json:"kind"`
	Verdict string          `json:"verdict"`
	Value   *int64          `json:"value"`
	Optimal bool            `json:"optimal"`
	Proof   string          `json:"proof"`
	Plan    json.RawMessage `json:"plan"`
	Details map[string]any  `json:"details"`
	Stats   *struct {
		Nodes int64 `json:"nodes"`
	} `json:"stats"`
	Error string `json:"error"`
	Field string `json:"field"`
}

func TestSolveInputOrderMatchesDP(t *testing.T) {
	t.Parallel()
	values := randomValues(1, 300, 200)
	dir := writeLevelFolder(t, values[:200])
	var nd strings.Builder
	for _, v := range values[200:] {
		nd.WriteString(twoendsJSON(v) + "\n\n") // blank lines are skipped
	}
	ndPath := filepath.Join(t.TempDir(), "more.ndjson")
	if err := os.WriteFile(ndPath, []byte(nd.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "", "solve", dir, ndPath)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := decodeLines[solveOut](t, strings.NewReader(stdout))
	if len(lines) != len(values) {
		t.Fatalf("%d result lines, want %d", len(lines), len(values))
	}
	for i, l := range lines {
		wantFile, wantLine := filepath.Join(dir, fmt.Sprintf("level%05d.json", i)), 0
		if i >= 200 {
			wantFile, wantLine = ndPath, 2*(i-200)+1
		}
		if l.File != wantFile || l.Line != wantLine {
			t.Fatalf("line %d is %s:%d, want %s:%d (input order)", i, l.File, l.Line, wantFile, wantLine)
		}
		want := twoendstest.DP(values[i])
		if l.Kind != "twoends" || l.Verdict != "solved" || l.Value == nil || *l.Value != want || !l.Optimal || l.Stats == nil {
			t.Fatalf("%s:%d: %+v, want solved value %d", l.File, l.Line, l, want)
		}
		var plan string
		if err := json.Unmarshal(l.Plan, &plan); err != nil {
			t.Fatalf("%s: plan %s: %v", l.File, l.Plan, err)
		}
		if got, err := twoendstest.Replay(values[i], plan); err != nil || got != want {
			t.Fatalf("%s: plan %s replays to %d, %v; want %d", l.File, plan, got, err, want)
		}
	}
}

func TestSolveInvalidLevelsExitOne(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "mixed.ndjson")
	text := `{"kind":"twoends","values":[3,1,2]}` + "\n" +
		`{"kind":"twoends","values":[]}` + "\n" +
		`{"kind":"nope"}` + "\n" +
		`{not json` + "\n" +
		`{"kind":"twoends","values":[1,"x"]}` + "\n" +
		`{"kind":"twoends","values":[5]}` + "\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ := runCLI(t, "", "solve", path)
	if code != exitError {
		t.Fatalf("exit %d, want 1", code)
	}
	lines := decodeLines[solveOut](t, strings.NewReader(stdout))
	if len(lines) != 6 {
		t.Fatalf("%d lines, want 6:\n%s", len(lines), stdout)
	}
	for i, want := range []struct{ field, errPart, verdict string }{
		{"", "", "solved"},
		{"values", "missing or empty", ""},
		{"kind", "unknown kind", ""},
		{"", "invalid JSON", ""},
		{"values[1]", "", ""},
		{"", "", "solved"},
	} {
		l := lines[i]
		if l.Line != i+1 || l.Verdict != want.verdict || l.Field != want.field || !strings.Contains(l.Error, want.errPart) ||
			(want.verdict == "") == (l.Error == "") {
			t.Errorf("line %d: %+v, want field %q error ~%q verdict %q", i+1, l, want.field, want.errPart, want.verdict)
		}
	}
}

func TestSolveStdin(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runCLI(t, `{"kind":"twoends","values":[1,100,2]}`+"\n"+`{"kind":"twoends","values":[-4]}`, "solve", "-")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := decodeLines[solveOut](t, strings.NewReader(stdout))
	if len(lines) != 2 || lines[0].File != "-" || lines[0].Line != 1 || *lines[0].Value != -97 || *lines[1].Value != -4 {
		t.Fatalf("stdin results:\n%s", stdout)
	}
	// One pretty-printed level on stdin.
	code, stdout, _ = runCLI(t, "{\n  \"kind\": \"twoends\",\n  \"values\": [7, 1]\n}\n", "solve", "--json", "-")
	lines = decodeLines[solveOut](t, strings.NewReader(stdout))
	if code != exitOK || len(lines) != 1 || lines[0].Line != 0 || *lines[0].Value != 6 || lines[0].Details["winner"] != "first" {
		t.Fatalf("exit %d:\n%s", code, stdout)
	}
}

func TestSolveBudgetGivesUnknown(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runCLI(t, twoendsJSON(randomValues(3, 1, 1)[0][:1])+"\n"+twoendsJSON(make([]int64, 500)), "solve", "--max-nodes", "3", "-")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := decodeLines[solveOut](t, strings.NewReader(stdout))
	if len(lines) != 2 || lines[1].Verdict != "unknown" || lines[1].Value != nil || lines[1].Error != "" {
		t.Fatalf("budget of 3 nodes on 500 values:\n%s", stdout)
	}
}

func TestSolveTableOnRequest(t *testing.T) {
	t.Parallel()
	code, stdout, _ := runCLI(t, `{"kind":"twoends","values":[3,1,2]}`, "--json=false", "solve", "-")
	if code != exitOK || !strings.HasPrefix(stdout, "LEVEL") || !strings.Contains(stdout, "solved") {
		t.Fatalf("exit %d, table:\n%s", code, stdout)
	}
}

// Issue 13 items 1 and 6: solve refuses what the server refuses.
func TestSolveRefusesWhatTheServerRefuses(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "edge.ndjson")
	sheep := func(id string) string {
		return `{"kind":"sheep","tiles":[{"id":` + id + `,"type":1,"x":0,"y":0,"layer":0},` +
			`{"id":"b","type":1,"x":0,"y":0,"layer":1},{"id":"c","type":1,"x":0,"y":0,"layer":2}]}`
	}
	text := sheep(`"a\u0000"`) + "\n" + sheep(`"a\ud800"`) + "\n" + `{"kind":"twoends","values":[null,2]}` + "\n" + sheep(`"a"`) + "\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ := runCLI(t, "", "solve", path)
	if code != exitError {
		t.Fatalf("exit %d, want 1", code)
	}
	lines := decodeLines[solveOut](t, strings.NewReader(stdout))
	if len(lines) != 4 {
		t.Fatalf("%d lines, want 4:\n%s", len(lines), stdout)
	}
	for i, field := range []string{"tiles[0].id", "tiles[0].id", "values[0]", ""} {
		if l := lines[i]; l.Field != field || (field == "") != (l.Error == "") {
			t.Errorf("line %d: %+v, want an error on %q", i+1, l, field)
		}
	}
}
