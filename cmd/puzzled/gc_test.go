package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/puzzled/puzzled/internal/envtest"
	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/store"
	"github.com/puzzled/puzzled/store/storetest"
)

// TestGC: `puzzled gc` deletes a project's jobs that ended longer ago than
// its retention and keeps the one holding its level's result, and a
// worker's periodic pass does the same for jobs that expire later.
func TestGC(t *testing.T) {
	db := envtest.PostgresURL(t)
	ctx := t.Context()
	if err := store.Migrate(ctx, db, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, db, store.OpenOpts{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	conn, err := pgx.Connect(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	p, err := st.CreateProject(ctx, "hourly")
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SetRetention(ctx, p.ID, store.Retention{Keep: time.Hour}); err != nil {
		t.Fatal(err)
	}
	// Two jobs of one level, the older solved, the newer unknown: the
	// older keeps the level's result. A job of another level, unknown.
	job := func(values string, res solver.Result) int64 {
		t.Helper()
		j, err := st.CreateJob(ctx, store.JobParams{Level: storetest.Level("twoends", []byte(`{"kind":"twoends","values":[`+values+`]}`)),
			Priority: "interactive", MaxAttempts: 3, Project: p.ID})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := storetest.Finish(ctx, st, []store.Finish{{JobID: j.ID, SolverVersion: "v1", Result: res}}); err != nil {
			t.Fatal(err)
		}
		return j.ID
	}
	solvedJob := job("1,2,3", solver.Result{Verdict: solver.Solved, Value: solver.Int64(2), Optimal: true, Plan: []byte(`"LL"`)})
	job("1,2,3", solver.Result{Verdict: solver.Unknown})
	other := job("4,5,6", solver.Result{Verdict: solver.Unknown})
	backdate := func(d time.Duration) {
		t.Helper()
		if _, err := conn.Exec(ctx, `UPDATE jobs SET created_at = created_at - $1::interval, finished_at = finished_at - $1::interval
			WHERE project_id = $2`, d.String(), p.ID); err != nil {
			t.Fatal(err)
		}
	}
	jobs := func() int {
		t.Helper()
		var n int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM jobs WHERE project_id = $1`, p.ID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	out, err := captureStdout(t, func() error { return runGC(ctx, []string{"--database-url=" + db}) })
	if err != nil || !strings.HasPrefix(out, "deleted 0 jobs") || jobs() != 3 {
		t.Fatalf("puzzled gc before the hour: %q, %v, %d jobs; want nothing deleted", out, err, jobs())
	}
	backdate(2 * time.Hour)
	out, err = captureStdout(t, func() error { return runGC(ctx, []string{"--database-url=" + db}) })
	if err != nil || !strings.HasPrefix(out, "deleted 2 jobs, 0 batches and 1 levels; kept 1 jobs") {
		t.Fatalf("puzzled gc after two hours: %q, %v; want 2 jobs and 1 level deleted, 1 kept", out, err)
	}
	if _, err := st.GetJob(ctx, solvedJob); err != nil {
		t.Errorf("the job holding the level's result: %v; want kept", err)
	}
	if _, err := st.GetJob(ctx, other); err == nil {
		t.Errorf("job %d of a level without a definitive result is still there", other)
	}

	// The periodic pass: a new job that ended two hours ago goes within a
	// few periods.
	job("7,8,9", solver.Result{Verdict: solver.Unknown})
	backdate(2 * time.Hour)
	pctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		collectPeriodically(pctx, st, 20*time.Millisecond, slog.New(slog.DiscardHandler))
	}()
	deadline := time.Now().Add(10 * time.Second)
	for jobs() != 1 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	stop()
	<-done
	if n := jobs(); n != 1 {
		t.Errorf("after the periodic pass: %d jobs; want the kept one only", n)
	}
}

// captureStdout returns what fn prints.
func captureStdout(t *testing.T, fn func() error) (string, error) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = w
	err = fn()
	os.Stdout = stdout
	w.Close()
	var out bytes.Buffer
	_, _ = io.Copy(&out, r)
	return strings.TrimSpace(out.String()), err
}
