package api_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/puzzled/puzzled/api"
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
