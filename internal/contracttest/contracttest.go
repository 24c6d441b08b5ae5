// Package contracttest checks HTTP traffic against puzzled's OpenAPI
// document (api/openapi.json), so that a test suite that talks to the API
// fails when the server and the document drift apart. It is for tests
// only: wrap the handler under test with [Handler], or a client's
// transport with [Transport].
//
// Every response must be declared (status, headers, content type, body
// schema). Requests are validated too; a request the document rejects may
// be a test's deliberate bad input, so it is an error only when the server
// accepts it (a status below 400): then the server is laxer than the
// document.
package contracttest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/puzzled/puzzled/api"
)

// ndjson is the media type of NDJSON bodies; the document describes such a
// body as an array of its lines.
const ndjson = "application/x-ndjson"

var (
	loadOnce sync.Once
	router   routers.Router
	loadErr  error
)

// load parses and validates the document once per test binary.
func load() (routers.Router, error) {
	loadOnce.Do(func() {
		openapi3filter.RegisterBodyDecoder(ndjson, decodeNDJSON)
		loader := openapi3.NewLoader()
		doc, err := loader.LoadFromData(api.OpenAPIDocument())
		if err != nil {
			loadErr = fmt.Errorf("load openapi.json: %w", err)
			return
		}
		if err := doc.Validate(context.Background()); err != nil {
			loadErr = fmt.Errorf("openapi.json is not a valid OpenAPI document: %w", err)
			return
		}
		doc.Servers = nil // match any test server's host and port
		router, loadErr = gorillamux.NewRouter(doc)
	})
	return router, loadErr
}

// decodeNDJSON reads an NDJSON body as the array of its lines.
func decodeNDJSON(body io.Reader, _ http.Header, _ *openapi3.SchemaRef, _ openapi3filter.EncodingFn) (any, error) {
	var lines []any
	sc := bufio.NewScanner(body)
	sc.Buffer(nil, 256<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var v any
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			return nil, fmt.Errorf("NDJSON line %d: %w", len(lines)+1, err)
		}
		lines = append(lines, v)
	}
	return lines, sc.Err()
}

// Check validates one exchange and returns what does not match the
// document.
func Check(req *http.Request, reqBody []byte, status int, header http.Header, respBody []byte) []error {
	if !isAPIPath(req.URL.Path) {
		return nil // the workbench's pages (web/) are not part of the API
	}
	r, err := load()
	if err != nil {
		return []error{err}
	}
	// The router and validators read the request; give them a copy.
	req = req.Clone(context.Background())
	req.Body = io.NopCloser(bytes.NewReader(reqBody))
	route, params, err := r.FindRoute(req)
	if err != nil && (status == http.StatusNotFound || status == http.StatusMethodNotAllowed) {
		return nil // an unknown route or method, and the server says so
	}
	if err != nil {
		return []error{fmt.Errorf("%s %s: not in openapi.json: %w", req.Method, req.URL.Path, err)}
	}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: true}}
	var errs []error
	if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil && status < 400 {
		errs = append(errs, fmt.Errorf("%s %s: the server answered %d to a request openapi.json rejects: %w",
			req.Method, req.URL.Path, status, err))
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: status, Header: header,
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true}}
	out.SetBodyBytes(respBody)
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		errs = append(errs, fmt.Errorf("%s %s → %d: response does not match openapi.json: %w\nbody: %.500s",
			req.Method, req.URL.Path, status, err, respBody))
	}
	return errs
}

// isAPIPath reports whether path belongs to the API that openapi.json
// describes, rather than to the workbench pages served beside it.
func isAPIPath(path string) bool {
	switch path {
	case "/healthz", "/readyz", "/metrics":
		return true
	}
	return strings.HasPrefix(path, "/v1/")
}

// Handler serves next and checks every exchange, reporting mismatches
// with t.Errorf.
func Handler(t testing.TB, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Keep a copy of what the handler reads, as it reads it: buffering
		// the body first would defeat the server's streaming, its upload
		// slots and its slow-upload cut-off. A request the server accepted
		// was read whole.
		var body bytes.Buffer
		r.Body = teeBody{Reader: io.TeeReader(r.Body, &body), Closer: r.Body}
		rec := &recorder{ResponseWriter: w, status: http.StatusOK}
		defer func() {
			if v := recover(); v != nil {
				panic(v) // an aborted stream (http.ErrAbortHandler) is not checked
			}
			for _, err := range Check(r, body.Bytes(), rec.status, w.Header(), rec.body.Bytes()) {
				t.Errorf("contracttest: %v", err)
			}
		}()
		next.ServeHTTP(rec, r)
	})
}

// teeBody is a request body whose reads are copied.
type teeBody struct {
	io.Reader
	io.Closer
}

// recorder passes a response through and keeps a copy.
type recorder struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (r *recorder) WriteHeader(status int) {
	r.status = status
	r.ResponseWriter.WriteHeader(status)
}

func (r *recorder) Write(p []byte) (int, error) {
	r.body.Write(p)
	return r.ResponseWriter.Write(p)
}

func (r *recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Transport wraps base (nil: http.DefaultTransport) so that every exchange
// a client makes is checked, for tests against a server in another
// process.
func Transport(t testing.TB, base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return roundTripper(func(req *http.Request) (*http.Response, error) {
		var body []byte
		if req.Body != nil {
			var err error
			if body, err = io.ReadAll(req.Body); err != nil {
				return nil, err
			}
			req.Body = io.NopCloser(bytes.NewReader(body))
		}
		resp, err := base.RoundTrip(req)
		if err != nil {
			return resp, err
		}
		respBody, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		resp.Body = io.NopCloser(bytes.NewReader(respBody))
		for _, err := range Check(req, body, resp.StatusCode, resp.Header, respBody) {
			t.Errorf("contracttest: %v", err)
		}
		return resp, nil
	})
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// Unwrap lets http.ResponseController reach the connection (read
// deadlines of the slow-upload guard).
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
