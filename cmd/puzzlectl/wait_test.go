package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/puzzled/puzzled/api/wire"
)

// fakeBatches serves GET /v1/batches/5 from a list of answers, one per
// poll (the last one repeats); a nil answer is a 503.
func fakeBatches(t *testing.T, answers ...*wire.Batch) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var polls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/batches/5" {
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"error":"not found"}`))
			return
		}
		n := int(polls.Add(1)) - 1
		a := answers[min(n, len(answers)-1)]
		if a == nil {
			http.Error(w, "try later", http.StatusServiceUnavailable)
			return
		}
		_ = json.NewEncoder(w).Encode(a)
	}))
	t.Cleanup(srv.Close)
	return srv, &polls
}

func batchOf(states, verdicts map[string]int) *wire.Batch {
	b := &wire.Batch{ID: 5, Total: 10, States: states, Verdicts: verdicts, Kinds: map[string]int{"twoends": 10},
		CreatedAt: time.Now().Add(-time.Minute)}
	b.Done = float64(finished(*b)) / 10
	if b.Done == 1 {
		now := time.Now()
		b.FinishedAt = &now
	}
	return b
}

func TestWaitRetriesAndFailsOnFailedJobs(t *testing.T) {
	t.Parallel()
	srv, polls := fakeBatches(t,
		nil, // a transient 503 is retried
		batchOf(map[string]int{"queued": 10}, nil),
		batchOf(map[string]int{"done": 9, "failed": 1}, map[string]int{"solved": 8, "unknown": 1}),
	)
	code, stdout, stderr := runCLI(t, "", "--server", srv.URL, "--json=false", "wait", "5")
	if code != exitBatchFailed {
		t.Fatalf("exit %d, want 2\n%s\n%s", code, stdout, stderr)
	}
	if polls.Load() != 3 {
		t.Fatalf("%d polls, want 3", polls.Load())
	}
	for _, want := range []string{"poll failed (1/30), retrying", "batch 5: 0/10", "batch 5: 10/10",
		"solved 8 unknown 1 failed 1", "1 jobs failed"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if !strings.Contains(stdout, "VERDICT") || !strings.Contains(stdout, "failed") {
		t.Errorf("summary table:\n%s", stdout)
	}
}

func TestWaitUnknownBatchEndsAtOnce(t *testing.T) {
	t.Parallel()
	// At once means without a retry: the one request is answered 404.
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"error":"not found"}`))
	}))
	t.Cleanup(srv.Close)
	code, _, stderr := runCLI(t, "", "--server", srv.URL, "wait", "6")
	if code != exitError || !strings.Contains(stderr, "404") || requests.Load() != 1 {
		t.Fatalf("exit %d after %d requests: %s", code, requests.Load(), stderr)
	}
}

func TestWaitInterrupted(t *testing.T) {
	t.Parallel()
	srv, _ := fakeBatches(t, batchOf(map[string]int{"queued": 4, "running": 2, "done": 4}, map[string]int{"solved": 4}))
	ctx, cancel := context.WithTimeout(t.Context(), 1500*time.Millisecond)
	defer cancel()
	var out, errOut strings.Builder
	code := run(ctx, []string{"--server", srv.URL, "wait", "5"}, strings.NewReader(""), &out, &errOut)
	if code != exitInterrupted || !strings.Contains(errOut.String(), "stopped waiting; batch 5 goes on") || out.Len() != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out.String(), errOut.String())
	}
}
