package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

func TestRetryable(t *testing.T) {
	t.Parallel()
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"connection refused", fmt.Errorf("store: open: %w", refused), true},
		{"connection reset", fmt.Errorf("migrate: %w", syscall.ECONNRESET), true},
		{"server closed the connection", fmt.Errorf("ping: %w", io.EOF), true},
		{"connection table full", fmt.Errorf("open: %w", &pgconn.PgError{Code: "53300"}), true},
		{"server starting up", &pgconn.PgError{Code: "57P03"}, true},
		{"server shutting down", &pgconn.PgError{Code: "57P01"}, true},
		{"password refused", &pgconn.PgError{Code: "28P01"}, false},
		{"no such database", &pgconn.PgError{Code: "3D000"}, false},
		{"migration syntax error", fmt.Errorf("migrate: %w", &pgconn.PgError{Code: "42601"}), false},
		{"bad URL", errors.New("cannot parse `postgres://x:y`: invalid port"), false},
	}
	for _, tc := range tests {
		if got := retryable(tc.err); got != tc.want {
			t.Errorf("%s: retryable(%v) = %v, want %v", tc.name, tc.err, got, tc.want)
		}
	}
}

// TestUntilReachable: tries until the server is there, gives up at once
// on an error waiting cannot cure, and after the timeout otherwise.
func TestUntilReachable(t *testing.T) {
	t.Parallel()
	logger := slog.New(slog.DiscardHandler)
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	tries := 0
	err := untilReachable(t.Context(), logger, "PostgreSQL", time.Minute, func() error {
		if tries++; tries < 3 {
			return refused
		}
		return nil
	})
	if err != nil || tries != 3 {
		t.Fatalf("reachable at the third try: %v after %d tries", err, tries)
	}

	tries = 0
	bad := &pgconn.PgError{Code: "28P01"}
	if err := untilReachable(t.Context(), logger, "PostgreSQL", time.Minute, func() error { tries++; return bad }); !errors.Is(err, bad) || tries != 1 {
		t.Fatalf("a refused password: %v after %d tries, want it at once", err, tries)
	}

	tries = 0
	if err := untilReachable(t.Context(), logger, "Redis", 0, func() error { tries++; return refused }); !errors.Is(err, refused) || tries != 1 {
		t.Fatalf("no time to wait: %v after %d tries", err, tries)
	}

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := untilReachable(ctx, logger, "Redis", time.Minute, func() error { return refused }); !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled while waiting: %v", err)
	}
}
