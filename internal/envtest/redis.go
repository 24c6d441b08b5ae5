package envtest

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// leaseWait bounds how long RedisAddr waits for a free Redis DB.
const leaseWait = 2 * time.Minute

// RedisAddr returns the address of a Redis server and a DB index (1..15) that
// this test alone uses until its cleanup; the DB is empty at the start and
// flushed at the end. The server is PUZZLED_TEST_REDIS_ADDR's, else the
// embedded one; other test processes on the same server are honoured through
// the leases on DB 0.
func RedisAddr(t testing.TB) (addr string, db int) {
	t.Helper()
	addr, err := redisAddr()
	if err != nil {
		t.Fatalf("envtest: Redis: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), leaseWait)
	defer cancel()
	l, err := acquireLease(ctx, addr, t.Name())
	if err != nil {
		t.Fatalf("envtest: Redis: %v", err)
	}
	t.Cleanup(func() {
		if err := l.release(); err != nil {
			t.Errorf("envtest: Redis: %v", err)
		}
	})
	return addr, l.db
}

// externalRedisCheck verifies PUZZLED_TEST_REDIS_ADDR once per test binary.
var externalRedisCheck struct {
	once sync.Once
	addr string
	err  error
}

// redisAddr is the address of the server the DBs are leased on.
func redisAddr() (string, error) {
	if v := os.Getenv(EnvRedisAddr); v != "" {
		c := &externalRedisCheck
		c.once.Do(func() { c.addr, c.err = checkExternalRedis(v) })
		return c.addr, c.err
	}
	r, err := shared.redisServer()
	if err != nil {
		return "", err
	}
	return r.Addr(), nil
}

// checkExternalRedis turns v (host:port or redis:// URL) into an address and
// checks that it answers PING.
func checkExternalRedis(v string) (string, error) {
	addr := v
	if strings.Contains(v, "://") {
		opts, err := redis.ParseURL(v)
		if err != nil {
			return "", fmt.Errorf("parse %s: %w", EnvRedisAddr, err)
		}
		addr = opts.Addr
	}
	c := newClient(addr, 0)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		return "", fmt.Errorf("%s=%s is set but its server cannot be used: %w", EnvRedisAddr, v, err)
	}
	return addr, nil
}

// newClient is a small client for lease bookkeeping.
func newClient(addr string, db int) *redis.Client {
	return redis.NewClient(&redis.Options{Addr: addr, DB: db, PoolSize: 2, DisableIdentity: true})
}
