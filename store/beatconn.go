package store

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// beatConn is a worker's heartbeat connection (OpenOpts.HeartbeatConn),
// kept for the store's life: beats never wait behind a busy pool, nor ask
// a full connection table for a connection.
//
// A beat that fails other than with an error of PostgreSQL's (its deadline
// passed, the connection was reset) leaves the connection in a state
// nobody knows, so it is dropped at once and the next beat connects anew.
// A pgxpool of one connection did the same, except that the dropped
// connection kept the pool's only slot until its cleanup ended (a cancel
// request, then waiting up to 15 s for the server to close it), so one
// stuck beat failed every beat of the next 15 s or more, and the worker
// gave its tasks back all that time (issue 30).
type beatConn struct {
	config *pgx.ConnConfig

	mu   sync.Mutex
	conn *pgx.Conn // nil until the first beat, and after a failed one
}

// exec runs sql on the connection, connecting first if there is none.
func (b *beatConn) exec(ctx context.Context, sql string, args ...any) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.conn == nil || b.conn.IsClosed() {
		c, err := pgx.ConnectConfig(ctx, b.config)
		if err != nil {
			return err
		}
		b.conn = c
	}
	_, err := b.conn.Exec(ctx, sql, args...)
	var pgErr *pgconn.PgError
	if err != nil && !errors.As(err, &pgErr) {
		go closeConn(b.conn) // it may wait on the server: not here
		b.conn = nil
	}
	return err
}

func (b *beatConn) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.conn != nil {
		closeConn(b.conn)
		b.conn = nil
	}
}

func closeConn(c *pgx.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = c.Close(ctx)
}
