package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"syscall"
	"testing"
	"time"

	"github.com/hibiken/asynq"
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

// A task taken in the moment before the worker noticed that PostgreSQL is
// out of its reach (and stopped taking tasks) is held for giveBackAfter,
// then given back; it runs if a heartbeat is written meanwhile.
func TestTaskTakenWhileCutOffIsHeldThenGivenBack(t *testing.T) {
	for _, tc := range []struct {
		name      string
		beatOld   bool          // the last beat is older than unreachableAfter when the task comes
		beatAt    time.Duration // a beat written this long after (0: none)
		ran       bool
		given     int64
		heldLeast time.Duration
	}{
		{"PostgreSQL in reach", false, 0, true, 0, 0},
		{"out of reach throughout", true, 0, false, 1, giveBackAfter},
		{"back during the hold", true, giveBackAfter / 4, true, 0, giveBackAfter / 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := &Worker{cfg: Config{Logger: slog.New(slog.DiscardHandler), UnreachableAfter: unreachableAfter}}
			w.lastBeat.Store(time.Now().UnixNano())
			if tc.beatOld {
				w.lastBeat.Store(time.Now().Add(-2 * unreachableAfter).UnixNano())
			}
			if tc.beatAt > 0 {
				time.AfterFunc(tc.beatAt, w.beaten)
			}
			ran := false
			h := w.whilePostgresReachable(asynq.HandlerFunc(func(context.Context, *asynq.Task) error {
				ran = true
				return nil
			}))
			start := time.Now()
			err := h.ProcessTask(t.Context(), asynq.NewTask("solve", nil))
			held := time.Since(start)
			if ran != tc.ran || w.GivenBack() != tc.given {
				t.Fatalf("ran %v, given back %d (error %v); want ran %v, given back %d", ran, w.GivenBack(), err, tc.ran, tc.given)
			}
			if !tc.ran && !errors.Is(err, errNoPostgres) {
				t.Fatalf("error %v, want errNoPostgres", err)
			}
			if held < tc.heldLeast {
				t.Fatalf("held the task %s, want at least %s", held, tc.heldLeast)
			}
		})
	}
}
