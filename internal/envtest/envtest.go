// Package envtest gives integration tests their own PostgreSQL database and
// Redis database, on servers named by the environment or on an embedded stack
// (internal/devstack) that the test binary starts on first use.
//
// # Use
//
//	func TestMain(m *testing.M) { os.Exit(envtest.Run(m)) }
//
//	func TestSomething(t *testing.T) {
//		t.Parallel()
//		pool, _ := pgxpool.New(ctx, envtest.PostgresURL(t)) // a fresh, empty database
//		addr, db := envtest.RedisAddr(t)                    // a Redis DB of this test alone
//		...
//	}
//
// # Servers
//
// PUZZLED_TEST_DATABASE_URL names a PostgreSQL server (as a superuser or a
// role with CREATEDB); PUZZLED_TEST_REDIS_ADDR names a Redis server
// ("host:port" or a redis:// URL). When unset, the test binary starts a real
// postgres / redis-server (miniredis when redis-server is not installed) on
// free ports in temporary folders the first time a test asks, and Run stops
// them. A missing or unreachable server fails the test with the reason; it is
// never skipped.
//
// # Isolation
//
// PostgresURL creates a database with a unique name for each call and drops it
// WITH (FORCE) at cleanup. RedisAddr leases one of the DB indexes 1..15 through
// a key on DB 0 that every test process honours (SET NX with a TTL, renewed
// while held), flushes it on acquire and release, and waits when all are
// taken. OwnPostgres and OwnRedis give a test whole servers of its own, for
// tests that kill, flush or restart them.
package envtest

import (
	"context"
	"testing"
	"time"
)

// Environment variables naming external test servers.
const (
	EnvDatabaseURL = "PUZZLED_TEST_DATABASE_URL"
	EnvRedisAddr   = "PUZZLED_TEST_REDIS_ADDR"
)

// Run runs the tests, then drops the databases whose drop at cleanup failed
// and stops the embedded servers that were started for them. Use it in
// TestMain: os.Exit(envtest.Run(m)).
func Run(m *testing.M) int {
	code := m.Run()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	shared.stop(ctx)
	return code
}
