package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/puzzled/puzzled/api/wire"
	"github.com/puzzled/puzzled/solver/columns"
	"github.com/puzzled/puzzled/solver/sheep"
)

// mixedLevels writes 500 levels of every kind into a folder: twoends,
// zuma (hand, some unsolvable; unlimited), small sheep (some unsolvable)
// and columns.
func mixedLevels(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(42, 1))
	write := func(i int, level string) {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%03d.json", i)), []byte(level), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	colors := "RGBY"
	zumaBoard := func() string {
		var b []byte
		for len(b) < 5+rng.IntN(6) {
			c := colors[rng.IntN(3)]
			if n := len(b); n >= 2 && b[n-1] == c && b[n-2] == c {
				continue
			}
			b = append(b, c)
		}
		return string(b)
	}
	for i := range 500 {
		switch {
		case i < 200:
			write(i, twoendsJSON(randomValues(uint64(i), 1, 50)[0]))
		case i < 300:
			hand := []byte{colors[rng.IntN(3)], colors[rng.IntN(3)], colors[rng.IntN(3)]}
			write(i, fmt.Sprintf(`{"kind":"zuma","board":%q,"hand":%q}`, zumaBoard(), hand))
		case i < 350:
			write(i, fmt.Sprintf(`{"kind":"zuma","board":%q}`, zumaBoard()))
		case i < 425:
			g, err := sheep.Generate(rng, sheep.GenerateOpts{Tiles: 24 + 3*rng.IntN(4), Layers: 3, Types: 4})
			if err != nil {
				t.Fatal(err)
			}
			write(i, string(g.Level.Canonical()))
		default:
			lvl, err := columns.Generate(rng, columns.GenConfig{Width: 6, Height: 10, Rule: "lines", Colors: 4,
				Fill: 0.3, Pieces: 8, Goal: "score"})
			if err != nil {
				t.Fatal(err)
			}
			write(i, string(lvl.Canonical()))
		}
	}
	return dir
}

// TestMixedFolderReportMatchesDatabase: submit --wait a folder of 500
// mixed levels, read the report, export CSV, and check both against
// PostgreSQL.
func TestMixedFolderReportMatchesDatabase(t *testing.T) {
	t.Parallel()
	url, databaseURL := startStack(t)
	dir := mixedLevels(t)
	code, stdout, stderr := runCLI(t, "", "--server", url, "submit", "--wait", "--budget-ms", "20000", dir)
	if code != exitOK {
		t.Fatalf("submit --wait: exit %d\n%s\n%s", code, stdout, stderr)
	}
	var sum batchSummary
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil || sum.Total != 500 {
		t.Fatalf("summary %q: %v", stdout, err)
	}
	id := strconv.FormatInt(sum.ID, 10)

	code, stdout, stderr = runCLI(t, "", "--server", url, "report", id)
	var rep wire.Report
	if err := json.Unmarshal([]byte(stdout), &rep); code != exitOK || err != nil {
		t.Fatalf("report: exit %d %v\n%s", code, err, stderr)
	}
	code, stdout, stderr = runCLI(t, "", "--server", url, "results", id, "--format", "csv")
	if code != exitOK {
		t.Fatalf("results: exit %d %s", code, stderr)
	}
	rows, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
	if err != nil || len(rows) != 501 {
		t.Fatalf("csv: %d rows, %v", len(rows), err)
	}

	conn, err := pgx.Connect(t.Context(), databaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	dbRows, err := conn.Query(t.Context(), `
		SELECT j.seq, j.kind, j.state::text, coalesce(r.verdict, ''), coalesce(r.proof, '')
		FROM jobs j LEFT JOIN results r ON r.job_id = j.id WHERE j.batch_id = $1 ORDER BY j.seq`, sum.ID)
	if err != nil {
		t.Fatal(err)
	}
	type line struct {
		Seq                         int32
		Kind, State, Verdict, Proof string
	}
	db, err := pgx.CollectRows(dbRows, pgx.RowToStructByPos[line])
	if err != nil || len(db) != 500 {
		t.Fatalf("%d rows in the database, %v", len(db), err)
	}
	byKind := map[string]map[string]int{}
	unsolvable := map[int32]string{}
	for i, l := range db {
		row := rows[i+1]
		if row[0] != strconv.Itoa(int(l.Seq)) || row[2] != l.Kind || row[3] != l.State || row[4] != l.Verdict || row[7] != l.Proof {
			t.Fatalf("csv row %d %v, database %+v", i, row, l)
		}
		if byKind[l.Kind] == nil {
			byKind[l.Kind] = map[string]int{}
		}
		byKind[l.Kind][l.Verdict]++
		if l.Verdict == "unsolvable" {
			unsolvable[l.Seq] = l.Proof
		}
	}
	for kind, verdicts := range byKind {
		k := rep.Kinds[kind]
		for v, n := range verdicts {
			if k == nil || k.Verdicts[v] != n {
				t.Fatalf("report says %s %s = %v, database %d", kind, v, k, n)
			}
		}
	}
	if len(byKind) != 4 || len(unsolvable) == 0 || len(rep.Unsolvable) != len(unsolvable) {
		t.Fatalf("kinds %v; %d unsolvable in the database, %d in the report", byKind, len(unsolvable), len(rep.Unsolvable))
	}
	for _, u := range rep.Unsolvable {
		if u.Seq == nil || unsolvable[*u.Seq] != u.Proof || u.Proof == "" {
			t.Fatalf("report lists %+v; database proof %q", u, unsolvable[*u.Seq])
		}
	}
	if len(rep.Slowest) != 10 || rep.SolveMS.P99 < rep.SolveMS.P50 {
		t.Fatalf("slowest %d, solve ms %+v", len(rep.Slowest), rep.SolveMS)
	}
	code, stdout, _ = runCLI(t, "", "--server", url, "--json=false", "report", id)
	if code != exitOK || !strings.Contains(stdout, "UNSOLVABLE") || !strings.Contains(stdout, "sheep") {
		t.Fatalf("report table: exit %d\n%s", code, stdout)
	}
}
