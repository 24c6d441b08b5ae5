package main

import (
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/puzzled/puzzled/api/client"
	"github.com/puzzled/puzzled/api/wire"
	"github.com/puzzled/puzzled/solver/kinds"
	"github.com/puzzled/puzzled/solver/twoends/twoendstest"
)

// levelHash is the server's key of a level: SHA-256 of its canonical JSON.
func levelHash(t *testing.T, v []int64) string {
	t.Helper()
	lvl, err := kinds.Registry().Parse([]byte(twoendsJSON(v)))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(lvl.Canonical())
	return hex.EncodeToString(sum[:])
}

// TestEndToEnd drives puzzlectl as a user would against `puzzled serve` +
// `puzzled work` subprocesses: submit --wait of a folder of 500 twoends
// levels, then status, results (csv and ndjson), get, job, and the exit
// codes of --fail-on.
func TestEndToEnd(t *testing.T) {
	t.Parallel()
	url, _ := startStack(t)
	values := randomValues(7, 500, 60)
	dir := writeLevelFolder(t, values)

	// submit --wait: stdout is not a terminal, so the summary is JSON.
	code, stdout, stderr := runCLI(t, "", "--server", url, "submit", "--wait", "--fail-on", "unsolvable", dir)
	if code != exitOK {
		t.Fatalf("submit --wait: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	var sum batchSummary
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatalf("summary %q: %v", stdout, err)
	}
	if sum.Total != 500 || sum.States["done"] != 500 || sum.Verdicts["solved"] != 500 || sum.Kinds["twoends"] != 500 ||
		sum.Done != 1 || sum.FinishedAt == nil || sum.ElapsedMS <= 0 {
		t.Fatalf("summary %+v", sum)
	}
	id := strconv.FormatInt(sum.ID, 10)
	if !strings.Contains(stderr, "batch "+id+" submitted: 500 levels") || !strings.Contains(stderr, "500/500") {
		t.Fatalf("stderr lacks the submission and progress lines:\n%s", stderr)
	}

	t.Run("results csv", func(t *testing.T) {
		code, stdout, stderr := runCLI(t, "", "--server", url, "results", id, "--format", "csv")
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		rows, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 1+len(values) || strings.Join(rows[0], ",") != strings.Join(csvHeader, ",") {
			t.Fatalf("%d rows, header %v", len(rows), rows[0])
		}
		solved := 0
		for i, row := range rows[1:] {
			want := []string{strconv.Itoa(i), levelHash(t, values[i]), "twoends", "done", "solved",
				strconv.FormatInt(twoendstest.DP(values[i]), 10), "true", "exact"}
			if strings.Join(row[:8], ",") != strings.Join(want, ",") || row[11] != "" {
				t.Fatalf("row %d:\n got %v\nwant %v...", i, row, want)
			}
			if row[4] == "solved" {
				solved++
			}
		}
		if solved != sum.Verdicts["solved"] {
			t.Fatalf("%d solved rows, batch says %d", solved, sum.Verdicts["solved"])
		}
	})

	t.Run("results ndjson, status, get", func(t *testing.T) {
		code, stdout, _ := runCLI(t, "", "--server", url, "results", id)
		results := decodeLines[wire.BatchResult](t, strings.NewReader(stdout))
		if code != exitOK || len(results) != 500 || results[499].Seq != 499 || results[0].Result == nil {
			t.Fatalf("exit %d, %d results", code, len(results))
		}
		code, stdout, _ = runCLI(t, "", "--server", url, "status", id)
		var b batchSummary
		if err := json.Unmarshal([]byte(stdout), &b); code != exitOK || err != nil || b.ID != sum.ID || b.States["done"] != 500 {
			t.Fatalf("status: exit %d, %v, %s", code, err, stdout)
		}
		code, stdout, _ = runCLI(t, "", "--server", url, "status", "--job", strconv.FormatInt(results[3].JobID, 10))
		var j wire.Job
		if err := json.Unmarshal([]byte(stdout), &j); code != exitOK || err != nil || j.State != "done" || *j.Seq != 3 {
			t.Fatalf("status --job: exit %d, %v, %s", code, err, stdout)
		}
		code, stdout, _ = runCLI(t, "", "--server", url, "get", results[0].LevelHash)
		var lr wire.Level
		if err := json.Unmarshal([]byte(stdout), &lr); code != exitOK || err != nil || lr.Kind != "twoends" ||
			lr.Result == nil || *lr.Result.Value != twoendstest.DP(values[0]) {
			t.Fatalf("get: exit %d, %v, %s", code, err, stdout)
		}
		if code, _, stderr := runCLI(t, "", "--server", url, "results", "999999"); code != exitError || !strings.Contains(stderr, "404") {
			t.Fatalf("results of a missing batch: exit %d, %s", code, stderr)
		}
	})

	t.Run("job", func(t *testing.T) {
		v := []int64{5, -3, 8, 8, -1, 2, 40, 7}
		path := filepath.Join(t.TempDir(), "one.json")
		if err := os.WriteFile(path, []byte(twoendsJSON(v)), 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := runCLI(t, "", "--server", url, "job", path)
		var sol struct {
			JobID int64  `json:"job_id"`
			Value *int64 `json:"value"`
			Plan  string `json:"plan"`
		}
		if err := json.Unmarshal([]byte(stdout), &sol); code != exitOK || err != nil || sol.Value == nil || *sol.Value != twoendstest.DP(v) {
			t.Fatalf("job: exit %d, %v, %s %s", code, err, stdout, stderr)
		}
		if got, err := twoendstest.Replay(v, sol.Plan); err != nil || got != twoendstest.DP(v) {
			t.Fatalf("plan %q replays to %d, %v", sol.Plan, got, err)
		}
	})

	t.Run("project", func(t *testing.T) {
		// The stack's API has no token: every caller is an operator, who
		// makes a project and submits to it by name.
		c := client.New(url)
		if _, err := c.CreateProject(t.Context(), wire.ProjectRequest{Name: "studio-x"}); err != nil {
			t.Fatal(err)
		}
		dir := writeLevelFolder(t, randomValues(9, 3, 10))
		code, stdout, stderr := runCLI(t, "", "--server", url, "submit", "--wait", "--project", "studio-x", dir)
		var s batchSummary
		if err := json.Unmarshal([]byte(stdout), &s); err != nil || code != exitOK || s.States["done"] != 3 {
			t.Fatalf("submit --project: exit %d, %v\n%s\n%s", code, err, stdout, stderr)
		}
		code, stdout, stderr = runCLI(t, "", "--server", url, "jobs", "--project", "studio-x", "--format", "ndjson")
		jobs := decodeLines[wire.JobListItem](t, strings.NewReader(stdout))
		if code != exitOK || len(jobs) != 3 || *jobs[0].BatchID != s.ID {
			t.Fatalf("jobs --project studio-x: exit %d, %d jobs\n%s", code, len(jobs), stderr)
		}
		code, stdout, _ = runCLI(t, "", "--server", url, "batches", "--project", "default", "--format", "ndjson")
		for _, b := range decodeLines[wire.BatchListItem](t, strings.NewReader(stdout)) {
			if b.ID == s.ID {
				t.Fatalf("batches --project default lists studio-x's batch %d", s.ID)
			}
		}
		if code != exitOK {
			t.Fatalf("batches --project default: exit %d", code)
		}
		one := filepath.Join(t.TempDir(), "one.json")
		if err := os.WriteFile(one, []byte(twoendsJSON([]int64{1, 2})), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, stderr = runCLI(t, "", "--server", url, "job", "--project", "no-such", one)
		if code == exitOK || !strings.Contains(stderr, "404") {
			t.Fatalf("job --project no-such: exit %d, %s", code, stderr)
		}
	})

	t.Run("fail-on unknown", func(t *testing.T) {
		// Fresh levels with a budget of one node end unknown (not cached:
		// unknown is never definitive).
		long := randomValues(8, 5, 1)
		for i := range long {
			long[i] = append(long[i], randomValues(uint64(100+i), 1, 1)[0]...)
			long[i] = append(long[i], make([]int64, 300)...)
		}
		dir := writeLevelFolder(t, long)
		code, stdout, stderr := runCLI(t, "", "--server", url, "submit", "--wait", "--max-nodes", "1",
			"--fail-on", "unsolvable", "--fail-on", "unknown", dir)
		var s batchSummary
		if err := json.Unmarshal([]byte(stdout), &s); err != nil || code != exitBatchFailed || s.Verdicts["unknown"] != 5 {
			t.Fatalf("exit %d (want 2), %v\n%s\n%s", code, err, stdout, stderr)
		}
		if !strings.Contains(stderr, "5 levels unknown (--fail-on unknown)") {
			t.Fatalf("stderr lacks the reason:\n%s", stderr)
		}
		id := strconv.FormatInt(s.ID, 10)
		if code, _, stderr := runCLI(t, "", "--server", url, "wait", id); code != exitOK {
			t.Fatalf("wait without --fail-on: exit %d, %s", code, stderr)
		}
		if code, _, _ := runCLI(t, "", "--server", url, "wait", "--fail-on", "unknown", id); code != exitBatchFailed {
			t.Fatalf("wait --fail-on unknown: exit %d, want 2", code)
		}
	})
}
