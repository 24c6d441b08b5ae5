package contracttest

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestCheckCatchesDrift: the checker passes a response the document
// allows and fails each kind of drift it exists to catch.
func TestCheckCatchesDrift(t *testing.T) {
	hash := strings.Repeat("ab", 32)
	level := `{"hash":"` + hash + `","kind":"twoends","level":{"kind":"twoends","values":[1]},"result":null}`
	jsonHeader := http.Header{"Content-Type": {"application/json"}}
	for _, c := range []struct {
		name, method, path, reqBody string
		status                      int
		header                      http.Header
		body                        string
		wantErr                     bool
	}{
		{"level without a result", "GET", "/v1/levels/" + hash, "", 200, jsonHeader, level, false},
		{"result of the wrong type", "GET", "/v1/levels/" + hash, "", 200, jsonHeader,
			strings.Replace(level, `"result":null`, `"result":5`, 1), true},
		{"undeclared status", "GET", "/v1/levels/" + hash, "", 418, jsonHeader, `{"error":"x"}`, true},
		{"undocumented route served", "GET", "/v1/nothing", "", 200, jsonHeader, `{}`, true},
		{"undocumented route answered 404", "GET", "/v1/nothing", "", 404, jsonHeader, `{"error":"x"}`, false},
		{"rate limited with Retry-After", "POST", "/v1/jobs", `{"kind":"twoends","values":[1]}`, 429,
			http.Header{"Content-Type": {"application/json"}, "Retry-After": {"1"}}, `{"error":"slow down"}`, false},
		{"accepted a request the document rejects", "POST", "/v1/jobs",
			`{"level":{"kind":"twoends","values":[1]},"budget":{"max_ms":-1}}`, 400, jsonHeader, `{"error":"x"}`, false},
		{"…and the same request answered 202", "POST", "/v1/jobs",
			`{"level":{"kind":"twoends","values":[1]},"budget":{"max_ms":-1}}`, 202, jsonHeader,
			`{"id":1,"level_hash":"x","kind":"twoends","state":"queued","priority":"interactive","budget":{},"attempts":0,"max_attempts":5,"cached":false,"created_at":"2026-01-01T00:00:00Z"}`,
			true},
		{"NDJSON results, one object per line", "GET", "/v1/batches/1/results", "", 200,
			http.Header{"Content-Type": {"application/x-ndjson"}},
			`{"seq":0,"job_id":1,"level_hash":"x","kind":"twoends","state":"queued","cached":false}` + "\n" +
				`{"seq":1,"job_id":2,"level_hash":"y","kind":"twoends","state":"done","cached":true}` + "\n", false},
		{"NDJSON results with a bad state", "GET", "/v1/batches/1/results", "", 200,
			http.Header{"Content-Type": {"application/x-ndjson"}},
			`{"seq":0,"job_id":1,"level_hash":"x","kind":"twoends","state":"lost","cached":false}` + "\n", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := httptest.NewRequest(c.method, c.path, strings.NewReader(c.reqBody))
			errs := Check(req, []byte(c.reqBody), c.status, c.header, []byte(c.body))
			if (len(errs) > 0) != c.wantErr {
				t.Fatalf("errors %v; want errors: %v", errs, c.wantErr)
			}
		})
	}
}
