package api_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/puzzled/puzzled/api"
)

// TestPostChecksContentTypeAndOptions: a form-encoded or otherwise foreign
// body is a 415 naming the accepted types; query options next to a
// {"levels": …} body are a 400 instead of being dropped; labels: null is
// accepted, as openapi.json says.
func TestPostChecksContentTypeAndOptions(t *testing.T) {
	t.Parallel()
	f := setup(t, api.Config{}, false)
	level := `{"kind":"twoends","values":[1,2]}`
	for _, c := range []struct {
		name, path, contentType, body string
		status                        int
		inError                       string
	}{
		{"curl -d without -H", "/v1/jobs", "application/x-www-form-urlencoded", level, 415, "application/json"},
		{"text on jobs", "/v1/jobs", "text/plain", level, 415, "application/json"},
		{"NDJSON on jobs", "/v1/jobs", "application/x-ndjson", level, 415, "application/json"},
		{"JSON with charset", "/v1/jobs", "application/json; charset=utf-8", level, 202, ""},
		{"no Content-Type", "/v1/jobs", "", level, 415, "application/json"},
		{"labels null", "/v1/jobs", "application/json", `{"level":` + level + `,"labels":null}`, 202, ""},
		{"form on batches", "/v1/batches", "application/x-www-form-urlencoded", "[" + level + "]", 415, "application/x-ndjson"},
		{"NDJSON batch", "/v1/batches?priority=interactive", "application/x-ndjson", level + "\n", 202, ""},
		{"priority in the query with an object body", "/v1/batches?priority=interactive", "application/json",
			`{"levels":[` + level + `]}`, 400, "priority"},
		{"max_ms in the query with an object body", "/v1/batches?max_ms=5", "application/json",
			`{"levels":[` + level + `]}`, 400, "max_ms"},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, f.url+c.path, strings.NewReader(c.body))
			if c.contentType != "" {
				req.Header.Set("Content-Type", c.contentType)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != c.status || !strings.Contains(string(body), c.inError) {
				t.Fatalf("status %d body %s; want %d mentioning %q", resp.StatusCode, body, c.status, c.inError)
			}
		})
	}
}
