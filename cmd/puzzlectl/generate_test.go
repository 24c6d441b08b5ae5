package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/difficulty"
	"github.com/puzzled/puzzled/solver/kinds"
)

// TestGenerateLocal runs `generate --local` on a zuma hand template: it
// prints as many levels as asked, each solved with a plan that replays
// and a score in the band, and says on stderr what it rejected.
func TestGenerateLocal(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "template.json")
	if err := os.WriteFile(path, []byte(`{"kind":"zuma","board":"AABBCCAABB","hand":"AABBCC"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, "", "generate", "--local", "--count", "3", "--min", "1", "--max", "4", "--playouts", "200", path)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 3 || !strings.Contains(stderr, "kept 3 of") || !strings.Contains(stderr, "rejected: unsolvable") {
		t.Fatalf("%d lines, stderr %q", len(lines), stderr)
	}
	reg := kinds.Registry()
	for _, line := range lines {
		var g struct {
			Score int             `json:"score"`
			Level json.RawMessage `json:"level"`
			solver.Result
		}
		if err := json.Unmarshal([]byte(line), &g); err != nil {
			t.Fatal(err)
		}
		lvl, err := reg.Parse(g.Level)
		if err != nil {
			t.Fatal(err)
		}
		var f difficulty.Figures
		if err := json.Unmarshal(g.Difficulty, &f); err != nil || f.Score == nil || *f.Score != g.Score {
			t.Fatalf("%s: figures %s", line, g.Difficulty)
		}
		if err := reg.KindOf(lvl).Verify(lvl, g.Result); err != nil || g.Verdict != solver.Solved || g.Score < 1 || g.Score > 4 {
			t.Fatalf("%s: %s, score %d, replay %v", g.Level, g.Verdict, g.Score, err)
		}
	}
}
