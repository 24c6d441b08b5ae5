package main

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/puzzled/puzzled/api/client"
	"github.com/puzzled/puzzled/api/wire"
)

// Long-polling of GET /v1/batches/{id}?wait=.
const (
	pollEvery      = time.Second
	pollTimeout    = 30 * time.Second // per request
	maxPollFailure = 30               // consecutive failed polls before giving up
)

func runWait(ctx context.Context, e *env, args []string) int {
	fs := e.flagSet("wait", "[--fail-on V]... ID",
		"Waits for a batch with a progress bar on stderr and prints a summary.\n"+
			"Exit 2 if a job failed or a verdict named by --fail-on occurred.")
	fail := failOn{}
	fs.Var(fail, "fail-on", "exit 2 if this verdict occurs: unsolvable, unknown or failed (repeatable)")
	id, code, ok := parseIDArgs(e, fs, args)
	if !ok {
		return code
	}
	return waitBatch(ctx, e, e.client(), id, fail)
}

// waitBatch polls a batch about once a second until every job is final,
// showing progress on stderr, then prints the summary and returns the exit
// status it calls for.
func waitBatch(ctx context.Context, e *env, c *client.Client, id int64, fail failOn) int {
	start := time.Now()
	p := newProgress(e.stderr, id)
	b, err := pollUntilDone(ctx, c, id, p)
	p.finish()
	switch {
	case ctx.Err() != nil:
		fmt.Fprintf(e.stderr, "puzzlectl: stopped waiting; batch %d goes on (puzzlectl wait %d)\n", id, id)
		return exitInterrupted
	case err != nil:
		return e.errorf("wait: batch %d: %v", id, err)
	}
	if err := printSummary(e, b, time.Since(start)); err != nil {
		return e.errorf("wait: %v", err)
	}
	return judge(e, b, fail)
}

// pollUntilDone long-polls until the batch is finished: each request
// answers as soon as the batch is final, or after pollEvery with its
// progress (an older server that ignores wait is paced the same way).
// Server and network errors are retried up to maxPollFailure times in a
// row; answers that retrying cannot change (404, 401, ...) end the wait
// at once.
func pollUntilDone(ctx context.Context, c *client.Client, id int64, p *progress) (wire.Batch, error) {
	failures := 0
	for {
		start := time.Now()
		b, err := getBatch(ctx, c, id)
		switch {
		case err == nil:
			failures = 0
			p.update(b, time.Now())
			if finished(b) >= b.Total {
				return b, nil
			}
		case ctx.Err() != nil:
			return b, ctx.Err()
		case isPermanent(err):
			return b, err
		default:
			if failures++; failures >= maxPollFailure {
				return b, fmt.Errorf("giving up after %d failed polls: %w", failures, err)
			}
			p.note(fmt.Sprintf("poll failed (%d/%d), retrying: %v", failures, maxPollFailure, err))
		}
		select {
		case <-ctx.Done():
			return b, ctx.Err()
		case <-time.After(pollEvery - time.Since(start)):
		}
	}
}

func getBatch(ctx context.Context, c *client.Client, id int64) (wire.Batch, error) {
	ctx, cancel := context.WithTimeout(ctx, pollTimeout)
	defer cancel()
	return c.WaitBatch(ctx, id, pollEvery)
}

// isPermanent reports whether an API error will not go away by retrying.
func isPermanent(err error) bool {
	s := client.StatusOf(err)
	return s >= 400 && s < 500 && s != http.StatusTooManyRequests && s != http.StatusRequestTimeout
}

// judge returns exitBatchFailed when a job failed or a verdict named by
// --fail-on occurred, saying why on stderr.
func judge(e *env, b wire.Batch, fail failOn) int {
	code := exitOK
	if n := b.States["failed"]; n > 0 {
		fmt.Fprintf(e.stderr, "puzzlectl: batch %d: %d jobs failed\n", b.ID, n)
		code = exitBatchFailed
	}
	for _, v := range []string{"unsolvable", "unknown"} {
		if n := b.Verdicts[v]; fail[v] && n > 0 {
			fmt.Fprintf(e.stderr, "puzzlectl: batch %d: %d levels %s (--fail-on %s)\n", b.ID, n, v, v)
			code = exitBatchFailed
		}
	}
	return code
}
