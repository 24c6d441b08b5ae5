package envtest

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"
)

func TestOwnPostgresKillAndRestart(t *testing.T) {
	t.Parallel()
	pg := OwnPostgres(t)
	ctx := context.Background()
	conn := connect(t, pg.URL())
	if _, err := conn.Exec(ctx, "CREATE TABLE t (n int)"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "CHECKPOINT"); err != nil {
		t.Fatal(err)
	}
	pg.Kill()
	if err := conn.Ping(ctx); err == nil {
		t.Fatal("ping answered after Kill")
	}
	if err := pg.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	conn2, err := pgx.Connect(ctx, pg.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer conn2.Close(ctx)
	if _, err := conn2.Exec(ctx, "INSERT INTO t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
}

func TestOwnRedisRestartIsEmpty(t *testing.T) {
	t.Parallel()
	r := OwnRedis(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := redis.NewClient(&redis.Options{Addr: r.Addr(), DisableIdentity: true})
	defer c.Close()
	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := r.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := c.Exists(ctx, "k").Result(); err != nil || n != 0 {
		t.Fatalf("after restart exists=%d, %v; want 0 (nothing kept on disk)", n, err)
	}
}
