package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// TestSubmitInvalidLevelsSendNothing checks that invalid levels are listed
// with file, line, field and reason, and that no request reaches the server.
func TestSubmitInvalidLevelsSendNothing(t *testing.T) {
	t.Parallel()
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		http.Error(w, "unexpected", http.StatusTeapot)
	}))
	defer srv.Close()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a.json": `{"kind":"twoends","values":[1,2]}`,
		"b.ndjson": `{"kind":"twoends","values":[1]}` + "\n\n" +
			`{"kind":"twoends","values":[1, 99999999999999999]}` + "\n" +
			`{"kind":"twoends","values":[1],"extra":true}` + "\n",
		"c.json": "{\n\"kind\": \"twoends\"\n\"values\": []}",
	})
	code, stdout, stderr := runCLI(t, "", "--server", srv.URL, "submit", "--wait", dir)
	if code != exitError {
		t.Fatalf("exit %d, want 1; stderr:\n%s", code, stderr)
	}
	if n := requests.Load(); n != 0 {
		t.Fatalf("%d requests reached the server", n)
	}
	if stdout != "" {
		t.Fatalf("stdout %q", stdout)
	}
	for _, want := range []string{
		filepath.Join(dir, "b.ndjson") + ":3: values[1]: ",
		filepath.Join(dir, "b.ndjson") + ":4: extra: unknown field",
		filepath.Join(dir, "c.json") + ": invalid JSON at line 3, column 1",
		"3 of 5 levels are invalid; nothing was sent",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

// TestSubmitMapsServerRejectionsToFiles checks that a 400 listing bad
// levels by index is reported by file and line.
func TestSubmitMapsServerRejectionsToFiles(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":"1 of 2 levels are invalid; the batch was not stored",` +
			`"errors":[{"index":1,"field":"values","reason":"too many for this server"}]}`))
	}))
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "two.ndjson")
	if err := os.WriteFile(path, []byte(`{"kind":"twoends","values":[1]}`+"\n"+`{"kind":"twoends","values":[2]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "", "submit", "--server", srv.URL, path)
	if code != exitError || !strings.Contains(stderr, path+":2: values: too many for this server") ||
		!strings.Contains(stderr, "HTTP 400") {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
}

// TestTokenIsSent checks --token and $PUZZLED_TOKEN-style bearer auth.
func TestTokenIsSent(t *testing.T) {
	t.Parallel()
	var auth atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth.Store(r.Header.Get("Authorization"))
		http.Error(w, `{"error":"batch 5: not found"}`, http.StatusNotFound)
	}))
	defer srv.Close()
	code, _, stderr := runCLI(t, "", "--token", "s3cret", "status", "--server", srv.URL, "5")
	if code != exitError || auth.Load() != "Bearer s3cret" || !strings.Contains(stderr, "404") {
		t.Fatalf("exit %d, auth %v, stderr %s", code, auth.Load(), stderr)
	}
}
