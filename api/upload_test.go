package api_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/puzzled/puzzled/api"
	"github.com/puzzled/puzzled/internal/waittest"
)

// Issue 13 item 2: batches are read as a stream, with limits on size,
// concurrent uploads and upload rate.
func TestBatchUploadLimits(t *testing.T) {
	t.Parallel()
	line := `{"kind":"twoends","values":[1,2,3]}` + "\n"
	t.Run("object form with options after the levels", func(t *testing.T) {
		t.Parallel()
		f := setup(t, api.Config{}, false)
		status, a := post(t, f.url+"/v1/batches", "application/json",
			`{"levels":[{"kind":"twoends","values":[1]},{"kind":"twoends","values":[2]}],"priority":"interactive","labels":{"run":"x"}}`)
		if status != 202 {
			t.Fatalf("%d %+v", status, a)
		}
		_, body := request(t, "GET", fmt.Sprintf("%s/v1/batches/%d", f.url, a.ID), "", "")
		if !strings.Contains(body, `"priority":"interactive"`) || !strings.Contains(body, `"total":2`) || !strings.Contains(body, `"run":"x"`) {
			t.Fatalf("batch %s", body)
		}
		status, a = post(t, f.url+"/v1/batches", "application/json", `{"levels":[{"kind":"twoends","values":[1]}],"priority":"urgent"}`)
		if status != 400 || a.Field != "priority" {
			t.Fatalf("bad trailing option: %d %+v", status, a)
		}
		status, a = post(t, f.url+"/v1/batches", "application/json", `{"levels":[{"kind":"twoends","values":[1]}]} [1]`)
		if status != 400 {
			t.Fatalf("trailing data: %d %+v", status, a)
		}
	})
	t.Run("a streamed body over the limit is 413 and stores nothing", func(t *testing.T) {
		t.Parallel()
		f := setup(t, api.Config{Limits: api.Limits{BatchBody: 64 << 10}}, false)
		pr, pw := io.Pipe()
		go func() { // chunked: no Content-Length to refuse early
			for range (128 << 10) / len(line) {
				if _, err := io.WriteString(pw, line); err != nil {
					return
				}
			}
			pw.Close()
		}()
		resp, err := http.Post(f.url+"/v1/batches", "application/x-ndjson", pr)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		pr.CloseWithError(io.ErrClosedPipe)
		if resp.StatusCode != 413 {
			t.Fatalf("status %d, want 413", resp.StatusCode)
		}
		if code, body := request(t, "GET", f.url+"/v1/batches/1", "", ""); code != 404 {
			t.Fatalf("a batch was stored: %d %s", code, body)
		}
	})
	t.Run("one level over the job body limit is 413", func(t *testing.T) {
		t.Parallel()
		f := setup(t, api.Config{Limits: api.Limits{JobBody: 1 << 10}}, false)
		big := `{"kind":"twoends","values":[` + strings.Repeat("1,", 1000) + "1]}"
		for _, body := range []string{line + big + "\n", "[" + big + "]", `{"levels":[` + big + "]}"} {
			if status, a := post(t, f.url+"/v1/batches", "application/json", body); status != 413 || a.Field != "levels" {
				t.Errorf("%.30s…: %d %+v, want 413", body, status, a)
			}
		}
	})
	t.Run("uploads beyond the slots get 503 with Retry-After", func(t *testing.T) {
		t.Parallel()
		f := setup(t, api.Config{Limits: api.Limits{BatchUploads: 1}}, false)
		pr, pw := io.Pipe()
		// Registered after setup's, so it runs first: a failure below
		// must not leave the first upload, and the server's Close, hanging.
		t.Cleanup(func() { pw.Close() })
		// With "Expect: 100-continue" the client sends the body only once
		// the handler reads it, which it does after taking the slot: so
		// the first write to the pipe returns only when the slot is held.
		// (Without it the write returned once the client had the line, and
		// under load the second upload could reach the server first.)
		holder := &http.Client{Transport: &http.Transport{ExpectContinueTimeout: time.Minute}}
		t.Cleanup(holder.CloseIdleConnections)
		req, err := http.NewRequest("POST", f.url+"/v1/batches", pr)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-ndjson")
		req.Header.Set("Expect", "100-continue")
		first := make(chan int, 1)
		go func() {
			resp, err := holder.Do(req)
			if err != nil {
				first <- 0
				return
			}
			resp.Body.Close()
			first <- resp.StatusCode
		}()
		if _, err := io.WriteString(pw, line); err != nil {
			t.Fatal(err)
		}
		resp, err := http.Post(f.url+"/v1/batches", "application/x-ndjson", strings.NewReader(line))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" {
			t.Fatalf("second upload: %d Retry-After %q, want 503 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
		}
		pw.Close()
		if code := <-first; code != 202 {
			t.Fatalf("first upload: %d, want 202", code)
		}
		if status, a := post(t, f.url+"/v1/batches", "application/x-ndjson", line); status != 202 {
			t.Fatalf("after the first finished: %d %+v", status, a)
		}
	})
	t.Run("a body slower than the minimum rate is cut with 408", func(t *testing.T) {
		t.Parallel()
		f := setup(t, api.Config{Limits: api.Limits{MinUploadRate: 1000, UploadGrace: 300 * time.Millisecond}}, false)
		for _, path := range []string{"/v1/batches", "/v1/jobs"} {
			pr, pw := io.Pipe()
			go func() { // slowloris: one byte every 50 ms, never ending
				tick := time.NewTicker(50 * time.Millisecond)
				defer tick.Stop()
				for range tick.C {
					if _, err := pw.Write([]byte(" ")); err != nil {
						return
					}
				}
			}()
			ct := "application/json"
			if path == "/v1/batches" {
				ct = "application/x-ndjson"
			}
			resp, err := http.Post(f.url+path, ct, pr)
			pr.CloseWithError(io.ErrClosedPipe)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 408 {
				t.Fatalf("%s: status %d, want 408", path, resp.StatusCode)
			}
		}
	})
}

// Issue 30 item 8: a batch whose database phase outlasts the upload's idle
// read deadline is stored and answered, not cut with an empty 200 (the
// object form's decoder reads once more after the body's end, which
// re-armed the deadline). The phase is made long by a lock on levels that
// the test holds until the upload has waited on it for three idle
// deadlines.
func TestBatchOutlivesItsUploadDeadline(t *testing.T) {
	t.Parallel()
	const idle = 200 * time.Millisecond
	f := setup(t, api.Config{Limits: api.Limits{UploadIdle: idle}}, false)
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, f.db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "LOCK TABLE levels IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	type reply struct {
		status int
		body   string
		err    error
	}
	done := make(chan reply, 1)
	go func() {
		resp, err := http.Post(f.url+"/v1/batches", "application/json", strings.NewReader(
			`{"levels":[{"level":{"kind":"twoends","values":[5,1,4]},"labels":{"file":"a.json"}},{"kind":"twoends","values":[2,7]}],"labels":{"run":"r1"}}`))
		if err != nil {
			done <- reply{err: err}
			return
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		done <- reply{resp.StatusCode, string(body), err}
	}()
	waittest.WaitFor(t, time.Minute, "the upload waits on the lock", func() bool {
		var waiting bool
		err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
			WHERE c.relname = 'levels' AND NOT l.granted)`).Scan(&waiting)
		return err == nil && waiting
	})
	time.Sleep(3 * idle) // a lower bound: the deadline has passed by then, however busy the machine
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil || r.status != http.StatusAccepted || !strings.Contains(r.body, `"total":2`) {
		t.Fatalf("status %d %q (error %v), want 202 with the batch", r.status, r.body, r.err)
	}
}
