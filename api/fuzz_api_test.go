package api_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/puzzled/puzzled/api"
)

// apiRequest is one request of the API fuzz tests.
type apiRequest struct {
	method, path, contentType, body string
}

// apiSeeds are valid requests of every route and kind.
var apiSeeds = []apiRequest{
	{"POST", "/v1/jobs", "application/json", `{"kind":"twoends","values":[3,1,2]}`},
	{"POST", "/v1/jobs", "application/json", `{"level":{"kind":"zuma","board":"RRGGBR","hand":"RGB"},"priority":"bulk","budget":{"max_ms":50,"max_nodes":1000},"labels":{"studio":"a","n":1}}`},
	{"POST", "/v1/jobs", "application/json", `{"kind":"zuma","board":"RGBRGB"}`},
	{"POST", "/v1/jobs", "application/json", `{"kind":"sheep","tiles":[{"id":"a","type":1,"x":0,"y":0,"layer":0},{"id":"b","type":1,"x":0,"y":0,"layer":1},{"id":"c","type":1,"x":0,"y":0,"layer":2}]}`},
	{"POST", "/v1/jobs", "application/json", `{"kind":"sheep","slots":7,"tiles":[{"id":"a","type":2,"covers":["b"]},{"id":"b","type":2,"covers":[]},{"id":"c","type":2,"covers":[]}]}`},
	{"POST", "/v1/jobs", "application/json", `{"kind":"columns","width":3,"height":3,"board":["...","...","RGB"],"next":["RRG","GGB"]}`},
	{"POST", "/v1/batches", "application/json", `[{"kind":"twoends","values":[1,2]},{"kind":"twoends","values":[5,-1,4]},{"kind":"twoends","values":[1,2]}]`},
	{"POST", "/v1/batches?priority=interactive&max_ms=20", "application/x-ndjson", "{\"kind\":\"twoends\",\"values\":[7]}\n{\"kind\":\"zuma\",\"board\":\"RRGG\",\"hand\":\"RG\"}\n"},
	{"POST", "/v1/batches", "application/json", `{"levels":[{"kind":"twoends","values":[9,9]}],"priority":"bulk","budget":{"max_nodes":10},"labels":{"k":["x",1,null]}}`},
	{"GET", "/v1/jobs/1", "", ""},
	{"GET", "/v1/jobs/1/solution", "", ""},
	{"POST", "/v1/jobs/1/cancel", "", ""},
	{"GET", "/v1/batches/1", "", ""},
	{"GET", "/v1/batches/1/results", "", ""},
	{"GET", "/v1/batches/1/report", "", ""},
	{"POST", "/v1/batches/1/cancel", "", ""},
	{"GET", "/v1/levels/" + strings.Repeat("ab", 32), "", ""},
	{"GET", "/v1/stats", "", ""},
	{"POST", "/v1/levels/validate", "application/json", `{"kind":"sheep","tiles":[{"id":"a","type":1,"x":0,"y":0,"layer":1},{"id":"b","type":2,"x":4,"y":0,"layer":1}]}`},
	{"POST", "/v1/play", "application/json", `{"level":{"kind":"zuma","board":"RRGGBR","hand":"RGB"},"moves":[{"at":0,"ball":"R"}],"budget":{"max_ms":50}}`},
	{"POST", "/v1/play", "application/json", `{"level":{"kind":"twoends","values":[3,1,2]},"moves":"LR"}`},
	{"POST", "/v1/play", "application/json", `{"level":{"kind":"sheep","slots":3,"tiles":[{"id":"a","type":2,"covers":["b"]},{"id":"b","type":2,"covers":[]},{"id":"c","type":2,"covers":[]}]},"moves":["a"]}`},
	{"GET", "/v1/openapi.json", "", ""},
	{"GET", "/healthz", "", ""},
}

// fuzzServer is the real API handler on a database and Redis DB of its own,
// with small body limits so that size mutations reach them.
func fuzzServer(t testing.TB) *api.Server {
	f := setup(t, api.Config{Limits: api.Limits{SubmitRate: 1e9, JobBody: 64 << 10, BatchBody: 256 << 10, BatchLevels: 50}}, false)
	return f.api
}

// serve sends one request to h and fails on any answer ≥ 500.
func serve(t testing.TB, h http.Handler, r apiRequest) {
	req := httptest.NewRequest(http.MethodGet, "/", strings.NewReader(r.body))
	req.Method, req.RequestURI = r.method, r.path
	var err error
	if req.URL, err = req.URL.Parse(r.path); err != nil || !strings.HasPrefix(req.URL.Path, "/") {
		return // not a request net/http would hand to a handler
	}
	if r.contentType != "" {
		req.Header.Set("Content-Type", r.contentType)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code >= 500 {
		t.Errorf("%s %q (%s) %.300q: %d %s", r.method, r.path, r.contentType, r.body, rec.Code, rec.Body.String())
	}
}

// FuzzAPI: no request makes the API answer ≥ 500.
//
//	go test -run XXX -fuzz FuzzAPI ./api/
func FuzzAPI(f *testing.F) {
	for _, s := range apiSeeds {
		f.Add(s.method, s.path, s.contentType, s.body)
	}
	h := fuzzServer(f)
	f.Fuzz(func(t *testing.T, method, path, contentType, body string) {
		serve(t, h, apiRequest{method, path, contentType, body})
	})
}

// TestAPIMutatedRequests runs a deterministic corpus of mutated requests
// (bytes, JSON structure, unicode, sizes, paths, methods) through the real
// handler, PostgreSQL and Redis: no answer ≥ 500, and the API still serves
// afterwards.
func TestAPIMutatedRequests(t *testing.T) {
	t.Parallel()
	n := 100_000
	if testing.Short() {
		n = 5_000
	}
	h := fuzzServer(t)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(13, uint64(w)))
			for next.Add(1) <= int64(n) && !t.Failed() {
				serve(t, h, mutate(rng, apiSeeds[rng.IntN(len(apiSeeds))]))
			}
		})
	}
	wg.Wait()
	for _, s := range apiSeeds[:2] {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(s.method, s.path, strings.NewReader(s.body))
		req.Header.Set("Content-Type", s.contentType)
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusAccepted {
			t.Fatalf("after the corpus, %s %s = %d %s", s.method, s.path, rec.Code, rec.Body.String())
		}
	}
}

// Fragments the mutator splices in.
var (
	jsonValues = []string{`null`, `0`, `-1`, `1.5`, `1e999`, `99999999999999999999`, `""`, `"\u0000"`, `"\ud800"`,
		`"\udfff\ud800"`, "\"\xff\xfe\"", `"🐑"`, `[]`, `{}`, `[null]`, `{"kind":"twoends"}`, `true`, `"a\"b"`,
		`[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]`, `{"":{"":{"":{}}}}`, `"` + strings.Repeat("x", 2000) + `"`}
	pathIDs  = []string{"0", "-1", "+1", "01", "1.0", "9223372036854775808", "%00", "%ff", "x", "", "1/2", "1%2F2", "🐑", strings.Repeat("9", 40)}
	methods  = []string{"GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS", "get"}
	ctypes   = []string{"", "application/json", "application/x-ndjson", "text/plain", "application/json; charset=utf-16", "ndjson"}
	unicodes = []string{"\x00", "\\u0000", "\\ud800", "\\udc00", "\xff", "\xc3", "\xed\xa0\x80", "\u2028", "\ufeff", "🐑", "\\", "\""}
)

// mutate returns a variation of r: one to three mutations of its body,
// path, method or content type.
func mutate(rng *rand.Rand, r apiRequest) apiRequest {
	for range 1 + rng.IntN(3) {
		switch rng.IntN(12) {
		case 0, 1: // flip, insert or delete bytes
			r.body = mutateBytes(rng, r.body)
		case 2, 3: // replace a JSON value with another
			r.body = replaceValue(rng, r.body)
		case 4: // unicode and escapes
			r.body = insertAt(rng, r.body, unicodes[rng.IntN(len(unicodes))])
		case 5: // sizes: repeat a slice of the body
			r.body = repeatSlice(rng, r.body)
		case 6: // structure: truncate, wrap, duplicate
			r.body = restructure(rng, r.body)
		case 7:
			r.path = mutatePath(rng, r.path)
		case 8:
			r.method = methods[rng.IntN(len(methods))]
		case 9:
			r.contentType = ctypes[rng.IntN(len(ctypes))]
		case 10: // another seed's body on this route
			r.body = apiSeeds[rng.IntN(len(apiSeeds))].body
		case 11: // NDJSON lines from array elements, or blank lines
			r.body = strings.ReplaceAll(r.body, "},{", "}\n\n{")
		}
	}
	return r
}

func mutateBytes(rng *rand.Rand, s string) string {
	b := []byte(s)
	for range 1 + rng.IntN(4) {
		i := 0
		if len(b) > 0 {
			i = rng.IntN(len(b))
		}
		switch rng.IntN(3) {
		case 0:
			if len(b) > 0 {
				b[i] = byte(rng.IntN(256))
			}
		case 1:
			b = append(b[:i], append([]byte{byte(rng.IntN(256))}, b[i:]...)...)
		case 2:
			if len(b) > 0 {
				b = append(b[:i], b[i+1:]...)
			}
		}
	}
	return string(b)
}

// replaceValue swaps the value after a random ':' or '[' or ',' for one of
// jsonValues, up to the next ',', '}' or ']'.
func replaceValue(rng *rand.Rand, s string) string {
	if s == "" {
		return jsonValues[rng.IntN(len(jsonValues))]
	}
	i := rng.IntN(len(s))
	j := strings.IndexAny(s[i:], ":[,")
	if j < 0 {
		return s
	}
	start := i + j + 1
	end := strings.IndexAny(s[start:], ",}]")
	if end < 0 {
		end = len(s) - start
	}
	return s[:start] + jsonValues[rng.IntN(len(jsonValues))] + s[start+end:]
}

func insertAt(rng *rand.Rand, s, frag string) string {
	i := 0
	if len(s) > 0 {
		i = rng.IntN(len(s) + 1)
	}
	return s[:i] + frag + s[i:]
}

// repeatSlice repeats a slice of s many times: long strings, many values,
// bodies past the limits.
func repeatSlice(rng *rand.Rand, s string) string {
	if s == "" {
		return strings.Repeat(" ", rng.IntN(1<<18))
	}
	i := rng.IntN(len(s))
	j := i + 1 + rng.IntN(min(len(s)-i, 40))
	times := 1 << rng.IntN(14)
	var b bytes.Buffer
	b.WriteString(s[:j])
	for range times {
		b.WriteString(s[i:j])
	}
	b.WriteString(s[j:])
	return b.String()
}

func restructure(rng *rand.Rand, s string) string {
	switch rng.IntN(5) {
	case 0:
		if len(s) > 0 {
			return s[:rng.IntN(len(s))]
		}
	case 1:
		return "[" + s + "]"
	case 2:
		return `{"levels":[` + s + `],"priority":"bulk"}`
	case 3:
		return s + "\n" + s
	case 4:
		return `{"level":` + s + `,"labels":{"a":` + jsonValues[rng.IntN(len(jsonValues))] + `}}`
	}
	return s
}

// mutatePath replaces the path's id, or a segment, or appends one.
func mutatePath(rng *rand.Rand, p string) string {
	id := pathIDs[rng.IntN(len(pathIDs))]
	switch rng.IntN(3) {
	case 0:
		if strings.Contains(p, "/1") {
			return strings.Replace(p, "/1", "/"+id, 1)
		}
		return p + "/" + id
	case 1:
		segs := strings.Split(p, "/")
		segs[rng.IntN(len(segs))] = id
		return strings.Join(segs, "/")
	}
	return fmt.Sprintf("%s?max_ms=%s&priority=%s", p, id, id)
}
