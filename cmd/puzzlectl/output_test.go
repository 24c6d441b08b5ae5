package main

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"
	"time"

	"github.com/puzzled/puzzled/api/wire"
	"github.com/puzzled/puzzled/solver"
)

// sampleResults are a solved, an unknown (no value), a failed and a queued
// result, with a comma, a quote and a newline in the error text.
func sampleResults() []wire.BatchResult {
	failure := "solver: bad, \"very\" bad\nsecond line"
	return []wire.BatchResult{
		{Seq: 0, JobID: 10, LevelHash: strings.Repeat("ab", 32), Kind: "twoends", State: "done", Cached: true,
			Result: &wire.Result{Result: solver.Result{Verdict: solver.Solved, Value: solver.Int64(-7), Optimal: true,
				Proof: "exact", Stats: solver.Stats{Nodes: 42, ElapsedMS: 3}}}},
		{Seq: 1, JobID: 11, LevelHash: strings.Repeat("cd", 32), Kind: "sheep", State: "done",
			Result: &wire.Result{Result: solver.Result{Verdict: solver.Unknown, Stats: solver.Stats{Nodes: 1000, ElapsedMS: 250}}}},
		{Seq: 2, JobID: 12, LevelHash: strings.Repeat("ef", 32), Kind: "zuma", State: "failed", Error: &failure},
		{Seq: 3, JobID: 13, LevelHash: "0123", Kind: "columns", State: "queued"},
	}
}

func writeResults(t *testing.T, format string) string {
	t.Helper()
	var buf bytes.Buffer
	w, err := newResultWriter(format, &buf)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range sampleResults() {
		if err := w.write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.flush(); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestResultsCSV(t *testing.T) {
	t.Parallel()
	rows, err := csv.NewReader(strings.NewReader(writeResults(t, "csv"))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		csvHeader,
		{"0", strings.Repeat("ab", 32), "twoends", "done", "solved", "-7", "true", "exact", "true", "42", "3", ""},
		{"1", strings.Repeat("cd", 32), "sheep", "done", "unknown", "", "false", "", "false", "1000", "250", ""},
		{"2", strings.Repeat("ef", 32), "zuma", "failed", "", "", "", "", "false", "", "", "solver: bad, \"very\" bad\nsecond line"},
		{"3", "0123", "columns", "queued", "", "", "", "", "false", "", "", ""},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d:\n%v", len(rows), len(want), rows)
	}
	for i := range want {
		if strings.Join(rows[i], "|") != strings.Join(want[i], "|") {
			t.Errorf("row %d:\n got %q\nwant %q", i, rows[i], want[i])
		}
	}
	if got := strings.Join(csvHeader, ","); got != "seq,level_hash,kind,state,verdict,value,optimal,proof,cached,nodes,elapsed_ms,error" {
		t.Fatalf("header %s", got)
	}
}

func TestResultsTable(t *testing.T) {
	t.Parallel()
	lines := strings.Split(strings.TrimRight(writeResults(t, "table"), "\n"), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d lines, want header + 4:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	if !strings.HasPrefix(lines[0], "SEQ ") || !strings.Contains(lines[0], "VERDICT") {
		t.Fatalf("header %q", lines[0])
	}
	// Columns are aligned: VERDICT starts at the same offset on every row.
	col := strings.Index(lines[0], "VERDICT")
	for i, verdict := range []string{"solved", "unknown", "", ""} {
		row := lines[i+1]
		if verdict != "" && !strings.HasPrefix(row[col:], verdict) {
			t.Errorf("row %d: %q has no %s at column %d", i, row, verdict, col)
		}
	}
	if !strings.Contains(lines[1], strings.Repeat("ab", 6)+" ") || strings.Contains(lines[1], strings.Repeat("ab", 7)) {
		t.Errorf("hash not cut to 12 characters: %q", lines[1])
	}
	if !strings.Contains(lines[3], "second line") {
		t.Errorf("error missing or not on one line: %q", lines[3])
	}
}

func TestResultsNDJSONAndBadFormat(t *testing.T) {
	t.Parallel()
	lines := strings.Split(strings.TrimSpace(writeResults(t, "ndjson")), "\n")
	if len(lines) != 4 || !strings.Contains(lines[0], `"verdict":"solved"`) {
		t.Fatalf("ndjson:\n%s", strings.Join(lines, "\n"))
	}
	if _, err := newResultWriter("xml", &bytes.Buffer{}); err == nil {
		t.Fatal("format xml accepted")
	}
}

func TestSummaryTable(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	e := newEnv(nil, &out, &out)
	e.jsonOK, e.json = true, false
	created := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	finishedAt := created.Add(2500 * time.Millisecond)
	b := wire.Batch{ID: 7, Total: 5, Priority: "bulk", Cached: 1, Done: 1, CreatedAt: created, FinishedAt: &finishedAt,
		States:   map[string]int{"done": 4, "failed": 1},
		Verdicts: map[string]int{"solved": 3, "unknown": 1},
		Kinds:    map[string]int{"twoends": 5}}
	if err := printSummary(e, b, 0); err != nil {
		t.Fatal(err)
	}
	var rows []string
	for line := range strings.Lines(out.String()) {
		rows = append(rows, strings.Join(strings.Fields(line), " "))
	}
	got := strings.Join(rows, "|")
	want := "batch 7|levels 5|done 5/5 (100.0%)|cached 1|priority bulk|elapsed 2.5s (2 levels/s)||" +
		"STATE COUNT|done 4|failed 1||VERDICT COUNT|solved 3|unknown 1||KIND COUNT|twoends 5"
	if got != want {
		t.Fatalf("summary\n got %s\nwant %s", got, want)
	}
}

func TestSortedDetailsFormatsNumbersPlainly(t *testing.T) {
	t.Parallel()
	got := sortedDetails(map[string]any{"winner": "first", "first": float64(18294328), "cleared": true})
	want := [][2]string{{"cleared", "true"}, {"first", "18294328"}, {"winner", "first"}}
	if len(got) != len(want) {
		t.Fatalf("%v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%v, want %v", got, want)
		}
	}
}
