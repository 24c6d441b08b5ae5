package worker

import (
	"errors"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// What asynq makes of a task's error: whether it counts as a failed
// attempt, and when the task is due again.
func TestRetryOfTasksThatFoundNoPostgres(t *testing.T) {
	for _, tc := range []struct {
		name    string
		err     error
		failure bool
		delay   time.Duration
	}{
		{"PostgreSQL out of the worker's reach", errNoPostgres, false, 0},
		{"connection table full", fmt.Errorf("store: start jobs: %w", &pgconn.PgError{Code: "53300"}), false, time.Second},
		{"server shutting down", fmt.Errorf("store: finish jobs: %w", &pgconn.PgError{Code: "57P01"}), false, time.Second},
		{"connection refused", fmt.Errorf("store: claim bundle: %w", syscall.ECONNREFUSED), false, time.Second},
		{"a statement's own error", fmt.Errorf("store: finish jobs: %w", &pgconn.PgError{Code: "23505"}), true, 8 * time.Second},
		{"a solver's error", errors.New("solver: out of memory"), true, 8 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := isFailure(tc.err); got != tc.failure {
				t.Errorf("isFailure = %v, want %v", got, tc.failure)
			}
			if got := retryDelay(3, tc.err, nil); got != tc.delay {
				t.Errorf("retryDelay after 3 retries = %v, want %v", got, tc.delay)
			}
		})
	}
}
