package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/puzzled/puzzled/store"
)

// The first retry of a server that is not there at start, and the longest
// wait between two tries.
const (
	firstRetry = 250 * time.Millisecond
	maxRetry   = 5 * time.Second
)

// untilReachable runs try until it succeeds, fails for a reason waiting
// cannot cure, ctx ends or timeout passes, waiting a doubling time (from
// firstRetry up to maxRetry) between tries: a fleet started together with
// its PostgreSQL and Redis, or restarted while PostgreSQL's connection
// table is full, comes up once they are there instead of exiting.
func untilReachable(ctx context.Context, logger *slog.Logger, what string, timeout time.Duration, try func() error) error {
	deadline := time.Now().Add(timeout)
	wait := firstRetry
	for {
		err := try()
		if err == nil || !retryable(err) {
			return err
		}
		if time.Now().Add(wait).After(deadline) {
			return fmt.Errorf("%s still not reachable after %v: %w", what, timeout, err)
		}
		logger.Warn(what+" not reachable yet; retrying", slog.Duration("in", wait), slog.Any("error", err))
		select {
		case <-ctx.Done():
			return errors.Join(err, ctx.Err())
		case <-time.After(wait):
		}
		wait = min(2*wait, maxRetry)
	}
}

// retryable reports whether a start-up error may pass with time
// (store.Transient): a fleet waits for its servers instead of exiting.
// A bad URL, a refused password, a missing database or a failed migration
// are reported at once.
func retryable(err error) bool { return store.Transient(err) }
