package envtest

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/puzzled/puzzled/internal/devstack"
)

// OwnPostgres starts a PostgreSQL server of this test alone on a free port
// (fsync off), for tests that kill, restart or otherwise break it. It is
// stopped and its folder removed at cleanup.
func OwnPostgres(t testing.TB) *devstack.Postgres { return OwnPostgresWith(t, nil) }

// OwnPostgresWith is OwnPostgres with server settings of the test's own
// on top of envtest's (max_connections, say).
func OwnPostgresWith(t testing.TB, settings map[string]string) *devstack.Postgres {
	t.Helper()
	dir, err := newTempDir("ownpg")
	if err != nil {
		t.Fatalf("envtest: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	cfg := postgresConfig(dir)
	for k, v := range settings {
		cfg.Settings[k] = v
	}
	pg, err := devstack.StartPostgres(context.Background(), cfg)
	if err != nil {
		t.Fatalf("envtest: own PostgreSQL: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := pg.Stop(ctx); err != nil {
			// Stop kills a server that does not stop in time, so it is gone
			// either way: a slow shutdown on a loaded machine (seen in CI)
			// says nothing about the test.
			t.Logf("envtest: own PostgreSQL: %v", err)
		}
	})
	return pg
}

// OwnRedis starts a Redis server of this test alone on a free port (nothing
// kept on disk, so Restart brings it back empty; miniredis when redis-server
// is not installed), for tests that kill, flush or restart it. It is stopped
// and its folder removed at cleanup.
func OwnRedis(t testing.TB) *devstack.Redis { return OwnRedisOn(t) }

// OwnRedisOn is OwnRedis listening on extraBind too, addresses besides
// 127.0.0.1 (a test's own network).
func OwnRedisOn(t testing.TB, extraBind ...string) *devstack.Redis {
	t.Helper()
	return ownRedis(t, false, extraBind...)
}

// OwnPersistentRedisOn is OwnRedisOn with RDB snapshots and the append-only
// file on: its data survives Restart.
func OwnPersistentRedisOn(t testing.TB, extraBind ...string) *devstack.Redis {
	t.Helper()
	return ownRedis(t, true, extraBind...)
}

func ownRedis(t testing.TB, persist bool, extraBind ...string) *devstack.Redis {
	t.Helper()
	r, dir, err := startRedis(context.Background(), persist, extraBind...)
	if err != nil {
		t.Fatalf("envtest: own Redis: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := r.Stop(ctx); err != nil {
			t.Logf("envtest: own Redis: %v", err) // killed when slow, as PostgreSQL above
		}
		os.RemoveAll(dir)
	})
	return r
}
