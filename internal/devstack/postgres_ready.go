package devstack

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// pollInterval is how often start-up polls a server for readiness.
const pollInterval = 25 * time.Millisecond

// waitReady polls the server on port until it accepts a connection, the
// process exits, or cfg.ReadyTimeout passes.
func (p *Postgres) waitReady(ctx context.Context, c *child, port int) error {
	ctx, cancel := context.WithTimeout(ctx, p.cfg.ReadyTimeout)
	defer cancel()
	url := p.urlOn(port, "postgres")
	var lastErr error
	for {
		if lastErr = pingPostgres(ctx, url); lastErr == nil {
			return nil
		}
		if isAuthFailure(lastErr) { // waiting will not change the password
			return fmt.Errorf("%w: postgres in %s on port %d: %w", ErrBadPassword, p.cfg.Dir, port, lastErr)
		}
		select {
		case <-c.exited:
			return p.startFailure(c, port, fmt.Errorf("postgres exited during start-up: %w", c.exitError()))
		case <-ctx.Done():
			return p.startFailure(c, port, fmt.Errorf("no connection within %s (last error: %w)", p.cfg.ReadyTimeout, lastErr))
		case <-time.After(pollInterval):
		}
	}
}

// startFailure builds the start-up error with the server's log tail.
func (p *Postgres) startFailure(c *child, port int, cause error) error {
	if !c.running() {
		<-c.tail.done
	}
	kind := ErrNotReady
	if c.tail.contains("Address already in use") || c.tail.contains("could not create any TCP/IP sockets") {
		kind = ErrPortInUse
	}
	return fmt.Errorf("%w: postgres in %s on port %d: %w\n--- server log (tail) ---\n%s",
		kind, p.cfg.Dir, port, cause, tailOrNone(c.tail))
}

// pingPostgres opens and closes one connection.
func pingPostgres(ctx context.Context, url string) error {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return fmt.Errorf("devstack: parse %s: %w", url, err)
	}
	cfg.ConnectTimeout = time.Second
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return err
	}
	return conn.Close(ctx)
}

// ensureDatabase creates database unless it exists.
func (p *Postgres) ensureDatabase(ctx context.Context, database string) error {
	conn, err := pgx.Connect(ctx, p.URLFor("postgres"))
	if err != nil {
		return fmt.Errorf("devstack: connect to postgres on port %d: %w", p.Port(), err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var exists bool
	err = conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", database).Scan(&exists)
	if err != nil {
		return fmt.Errorf("devstack: look up database %q: %w", database, err)
	}
	if exists {
		return nil
	}
	_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{database}.Sanitize())
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42P04" { // duplicate_database: created concurrently
		return nil
	}
	if err != nil {
		return fmt.Errorf("devstack: create database %q: %w", database, err)
	}
	return nil
}

// isAuthFailure reports whether err is the server refusing the password
// (invalid_password) or the missing one.
func isAuthFailure(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "28P01" || pgErr.Code == "28000")
}
