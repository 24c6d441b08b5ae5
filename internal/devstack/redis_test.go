package devstack

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func startTestRedis(t *testing.T, cfg RedisConfig) *Redis {
	t.Helper()
	cfg.Logger = testLogger(t)
	began := time.Now()
	r, err := StartRedis(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("redis ready in %s", time.Since(began))
	t.Cleanup(func() {
		if err := r.Stop(stopCtx(t)); err != nil {
			t.Error(err)
		}
	})
	return r
}

func redisClient(t *testing.T, addr string) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: addr, DisableIdentity: true})
	t.Cleanup(func() { c.Close() })
	return c
}

func TestRedisPersistSurvivesRestart(t *testing.T) {
	t.Parallel()
	r := startTestRedis(t, RedisConfig{Dir: tempDir(t), Persist: true})
	if r.InProcess() {
		t.Fatal("redis-server is installed here but miniredis was used")
	}
	ctx := context.Background()
	c := redisClient(t, r.Addr())
	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	addr := r.Addr()
	if err := r.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	if r.Addr() != addr {
		t.Fatalf("address changed on restart: %s -> %s", addr, r.Addr())
	}
	if got, err := c.Get(ctx, "k").Result(); err != nil || got != "v" {
		t.Fatalf("after restart: %q, %v; want v", got, err)
	}
	if got, err := c.ConfigGet(ctx, "maxmemory-policy").Result(); err != nil || got["maxmemory-policy"] != "noeviction" {
		t.Fatalf("maxmemory-policy = %v, %v", got, err)
	}
}

func TestRedisVolatileRestartIsEmpty(t *testing.T) {
	t.Parallel()
	r := startTestRedis(t, RedisConfig{})
	ctx := context.Background()
	c := redisClient(t, r.Addr())
	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	r.Kill()
	if err := pingRedis(ctx, r.Addr(), ""); err == nil {
		t.Fatal("PING answered after Kill")
	}
	if err := r.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := c.Exists(ctx, "k").Result(); err != nil || n != 0 {
		t.Fatalf("after restart without Persist: exists=%d, %v; want 0", n, err)
	}
}

func TestRedisMiniredisFallback(t *testing.T) {
	t.Parallel()
	r := startTestRedis(t, RedisConfig{Binary: "", InProcess: true})
	if !r.InProcess() {
		t.Fatal("want miniredis")
	}
	ctx := context.Background()
	c := redisClient(t, r.Addr())
	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := r.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	if got, err := c.Get(ctx, "k").Result(); err != nil || got != "v" {
		t.Fatalf("after restart: %q, %v; want v", got, err)
	}
}

func TestRedisPortInUse(t *testing.T) {
	t.Parallel()
	r := startTestRedis(t, RedisConfig{})
	_, err := StartRedis(t.Context(), RedisConfig{Port: r.Port()})
	if !errors.Is(err, ErrPortInUse) {
		t.Fatalf("got %v, want ErrPortInUse", err)
	}
	t.Log(err)
}
