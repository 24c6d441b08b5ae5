package devstack

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// startTestPostgres starts a throwaway server stopped at cleanup.
func startTestPostgres(t *testing.T, dir string) *Postgres {
	t.Helper()
	return startTestPostgresIn(t, PostgresConfig{Dir: dir, DisableFsync: true})
}

// startTestPostgresIn starts a server with cfg (plus the shared initdb cache
// and the test logger), stopped at cleanup.
func startTestPostgresIn(t *testing.T, cfg PostgresConfig) *Postgres {
	t.Helper()
	cfg.InitCacheDir, cfg.Logger = testInitCache(), testLogger(t)
	began := time.Now()
	pg, err := StartPostgres(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("postgres ready in %s", time.Since(began))
	t.Cleanup(func() {
		if err := pg.Stop(stopCtx(t)); err != nil {
			t.Error(err)
		}
	})
	return pg
}

func execSQL(t testing.TB, url, sql string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql, pgx.QueryExecModeSimpleProtocol); err != nil {
		t.Fatal(err)
	}
}

func query(t testing.TB, url, sql string, args ...any) int {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, sql, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestPostgresStartStopRestart(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	pg := startTestPostgres(t, dir)
	execSQL(t, pg.URL(), "CREATE TABLE kept (n int); INSERT INTO kept VALUES (42)")
	port := pg.Port()

	began := time.Now()
	if err := pg.Restart(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Logf("restart took %s", time.Since(began))
	if pg.Port() != port {
		t.Fatalf("port changed on restart: %d -> %d", port, pg.Port())
	}
	if n := query(t, pg.URL(), "SELECT n FROM kept"); n != 42 {
		t.Fatalf("after restart got %d, want 42", n)
	}
	pid := pg.PID()
	if err := pg.Stop(stopCtx(t)); err != nil {
		t.Fatal(err)
	}
	assertGone(t, pid, dir)
}

// assertGone checks that no process works in dir and no postmaster.pid is left.
func assertGone(t *testing.T, pid int, dir string) {
	t.Helper()
	if pids := processesIn(dir); len(pids) > 0 {
		t.Errorf("processes %v still work in %s", pids, dir)
	}
	if alive(pid) {
		t.Errorf("postmaster %d still exists", pid)
	}
	if _, err := os.Stat(filepath.Join(dir, "postmaster.pid")); err == nil {
		t.Errorf("postmaster.pid left in %s", dir)
	}
}
