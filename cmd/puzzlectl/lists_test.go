package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/puzzled/puzzled/api/wire"
)

// TestListCommands submits two labelled batches through a real stack and
// lists them back with puzzlectl jobs, batches and levels, in each format,
// following cursors (--max larger than a page is not needed: the server's
// pages are followed whatever their size).
func TestListCommands(t *testing.T) {
	t.Parallel()
	url, _ := startStack(t)
	forest := writeLevelFolder(t, randomValues(3, 5, 10))
	desert := writeLevelFolder(t, randomValues(4, 3, 10))
	for _, s := range []struct{ dir, label string }{{forest, "project:forêt"}, {desert, "project:desert"}} {
		if code, stdout, stderr := runCLI(t, "", "--server", url, "submit", "--wait", "--file-label", "--label", s.label, "--label", "chapter:3", s.dir); code != exitOK {
			t.Fatalf("submit: %d\n%s\n%s", code, stdout, stderr)
		}
	}

	code, stdout, stderr := runCLI(t, "", "--server", url, "jobs", "--label", "project:forêt", "--format", "csv")
	if code != exitOK {
		t.Fatalf("jobs: %d %s", code, stderr)
	}
	rows, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
	if err != nil || len(rows) != 1+5 || rows[0][0] != "id" || rows[1][5] != "done" || rows[1][6] != "solved" {
		t.Fatalf("jobs csv (%v):\n%s", err, stdout)
	}
	// submit --file-label labelled each job with its file, which the file column shows
	// (newest first: the folder's last file first).
	for i, row := range rows[1:] {
		if want := filepath.Join(forest, fmt.Sprintf("level%05d.json", 4-i)); rows[0][3] != "file" || row[3] != want {
			t.Fatalf("jobs csv row %d: file %q, want %q:\n%s", i, row[3], want, stdout)
		}
	}
	file := filepath.Join(desert, "level00001.json")
	code, stdout, _ = runCLI(t, "", "--server", url, "jobs", "--label", "file:"+file, "--format", "ndjson")
	if code != exitOK || strings.Count(stdout, "\n") != 1 || !strings.Contains(stdout, `"project":"desert"`) {
		t.Fatalf("jobs of file %s: %d\n%s", file, code, stdout)
	}

	code, stdout, _ = runCLI(t, "", "--server", url, "jobs", "--label", "chapter:3", "--kind", "twoends", "--verdict", "solved", "--format", "ndjson")
	if code != exitOK || strings.Count(stdout, "\n") != 8 {
		t.Fatalf("jobs of chapter 3: %d\n%s", code, stdout)
	}
	var j wire.JobListItem
	if err := json.Unmarshal([]byte(strings.SplitN(stdout, "\n", 2)[0]), &j); err != nil || j.Kind != "twoends" {
		t.Fatalf("ndjson line: %v %+v", err, j)
	}
	if code, stdout, _ := runCLI(t, "", "--server", url, "jobs", "--max", "2", "--format", "ndjson"); code != exitOK || strings.Count(stdout, "\n") != 2 {
		t.Fatalf("jobs --max 2: %d\n%s", code, stdout)
	}

	code, stdout, _ = runCLI(t, "", "--server", url, "--json=false", "batches", "--label", "project:desert")
	if code != exitOK || !strings.Contains(stdout, "TOTAL") || strings.Count(stdout, "\n") != 2 || !strings.Contains(stdout, `"desert"`) {
		t.Fatalf("batches table: %d\n%s", code, stdout)
	}
	code, stdout, _ = runCLI(t, "", "--server", url, "levels", "--kind", "twoends", "--verdict", "solved", "--format", "ndjson")
	if code != exitOK || strings.Count(stdout, "\n") != 8 {
		t.Fatalf("levels: %d\n%s", code, stdout)
	}
	if code, _, stderr := runCLI(t, "", "--server", url, "jobs", "--state", "asleep"); code != exitError || !strings.Contains(stderr, "400") {
		t.Fatalf("a bad filter: %d %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "", "--server", url, "jobs", "--label", "nocolon"); code != exitError || !strings.Contains(stderr, "key:value") {
		t.Fatalf("a bad label: %d %s", code, stderr)
	}
}
