package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/puzzled/puzzled/api/wire"
	"github.com/puzzled/puzzled/internal/e2etest"
	"github.com/puzzled/puzzled/internal/envtest"
	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/migrations"
	"github.com/puzzled/puzzled/solver/twoends/twoendstest"
)

// TestBehindPgBouncerInTransactionMode runs migrations, serve and two
// workers through a PgBouncer in transaction mode whose three server
// connections every client shares, as a managed PostgreSQL offers it
// (issue 30). Without --database-pooler transaction the same setup fails at
// start with `prepared statement "stmtcache_…" already exists`.
func TestBehindPgBouncerInTransactionMode(t *testing.T) {
	t.Parallel()
	direct := envtest.PostgresURL(t)
	pooled := envtest.PgBouncer(t, direct, 3)
	env := []string{"PUZZLED_DATABASE_URL=" + pooled, "PUZZLED_DATABASE_POOLER=transaction"}

	// Without a direct URL the start is refused, with the reason.
	p := e2etest.Start(t, env, "migrate", "up")
	<-p.Done()
	if p.ExitCode() == 0 || !strings.Contains(p.Output(), "--direct-database-url") {
		t.Fatalf("migrate up through a transaction pooler without a direct URL: exit %d, output %q", p.ExitCode(), p.Output())
	}

	// Four migrations at once, as four processes starting together: the
	// direct URL's advisory lock lets one apply each file once. Two of them
	// name it by its other name, PUZZLED_MIGRATE_DATABASE_URL.
	var migrators []*e2etest.Proc
	for i := range 4 {
		name := "PUZZLED_DIRECT_DATABASE_URL="
		if i%2 == 1 {
			name = "PUZZLED_MIGRATE_DATABASE_URL="
		}
		migrators = append(migrators, e2etest.Start(t, append(slices.Clip(env), name+direct), "migrate", "up"))
	}
	env = append(env, "PUZZLED_DIRECT_DATABASE_URL="+direct)
	for i, p := range migrators {
		<-p.Done()
		if p.ExitCode() != 0 {
			t.Fatalf("migrate up %d: exit %d:\n%s", i, p.ExitCode(), p.Output())
		}
	}
	checkMigratedOnce(t, direct)

	s := &e2etest.Stack{DatabaseURL: pooled, ExtraEnv: append(env[1:], "PUZZLED_CONCURRENCY=8")}
	s.RedisAddr, s.RedisDB = envtest.RedisAddr(t)
	s.Start(t)
	second := s.StartWorker(t)
	c := checkedClient(t, s.URL)
	ctx := t.Context()

	rng := rand.New(rand.NewPCG(30, 7))
	values := make([][]int64, 300)
	levels := make([]json.RawMessage, len(values))
	for i := range values {
		values[i] = make([]int64, 1+rng.IntN(30))
		for j := range values[i] {
			values[i][j] = rng.Int64N(101) - 50
		}
		levels[i], _ = json.Marshal(map[string]any{"kind": "twoends", "values": values[i]})
	}
	id, err := c.CreateBatch(ctx, levels, jobtype.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := waitBatch(t, c, id, 2*time.Minute)
	if b.States["done"] != len(values) {
		t.Fatalf("batch = %+v", b)
	}
	seq := 0
	err = c.BatchResults(ctx, id, func(r wire.BatchResult) error {
		if r.State != jobtype.Done || r.Result == nil || r.Result.Value == nil {
			return fmt.Errorf("seq %d: %s %+v", r.Seq, r.State, r.Result)
		}
		if want := twoendstest.DP(values[r.Seq]); *r.Result.Value != want {
			return fmt.Errorf("seq %d: value %d, DP says %d", r.Seq, *r.Result.Value, want)
		}
		seq++
		return nil
	})
	if err != nil || seq != len(values) {
		t.Fatalf("%d results: %v", seq, err)
	}

	// A long-poll wakes on the notification the direct listener receives.
	// Through the pooler, LISTEN would hold no session: the poll would
	// answer only when its wait ends.
	const wait = time.Minute
	job, err := c.CreateJob(ctx, json.RawMessage(`{"kind":"twoends","values":[9,4,7,1]}`), jobtype.Options{})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	got, err := c.WaitJob(ctx, job.ID, wait)
	if took := time.Since(start); err != nil || got.State != jobtype.Done || took >= wait {
		t.Fatalf("long-poll of job %d: %+v, %v after %s (its wait: %s)", job.ID, got, err, took, wait)
	}

	// No statement failed in PostgreSQL (a prepared statement that
	// already exists, or is missing, on a shared server connection).
	for name, p := range map[string]*e2etest.Proc{"serve": s.Serve, "work": s.Work, "second work": second} {
		if strings.Contains(p.Output(), "SQLSTATE") {
			t.Errorf("%s logged a PostgreSQL error:\n%s", name, p.Output())
		}
	}
}

// checkMigratedOnce checks that goose recorded every migration file once.
func checkMigratedOnce(t *testing.T, databaseURL string) {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), databaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.WithoutCancel(t.Context()))
	files, err := migrations.FS.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, f := range files {
		if strings.HasSuffix(f.Name(), ".sql") {
			want++
		}
	}
	var rows, distinct int
	err = conn.QueryRow(t.Context(), `SELECT count(*), count(DISTINCT version_id) FROM goose_db_version WHERE version_id > 0`).Scan(&rows, &distinct)
	if err != nil || rows != want || distinct != want {
		t.Fatalf("goose_db_version: %d rows, %d versions, want %d each (%v)", rows, distinct, want, err)
	}
}
