package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/puzzled/puzzled/api"
	"github.com/puzzled/puzzled/internal/envtest"
	"github.com/puzzled/puzzled/queue"
	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/store"
	"github.com/puzzled/puzzled/worker"
)

// toyKind is a kind that exists only in this test: a level
// {"kind":"toy","n":N}, or a kindless {"toy_n":N} that it detects (as
// sheep detects community files), solved at once with the plan N.
type toyKind struct{}

type toyLevel struct{ n int }

func (toyLevel) Kind() string        { return "toy" }
func (l toyLevel) Canonical() []byte { return fmt.Appendf(nil, `{"kind":"toy","n":%d}`, l.n) }

func (toyKind) Name() string    { return "toy" }
func (toyKind) Version() string { return "toy/1" }

func (toyKind) DetectLevel(fields map[string]json.RawMessage) bool {
	_, ok := fields["toy_n"]
	return ok
}

func (toyKind) Parse(data []byte) (solver.Level, error) {
	var l struct {
		Kind string `json:"kind"`
		N    *int   `json:"n"`
		ToyN *int   `json:"toy_n"`
	}
	if err := solver.DecodeStrict(data, &l); err != nil {
		return nil, err
	}
	if l.N == nil {
		l.N = l.ToyN
	}
	if l.N == nil || *l.N < 0 || *l.N > 100 {
		return nil, solver.Errorf("n", "want 0 to 100")
	}
	return toyLevel{n: *l.N}, nil
}

func (toyKind) Solve(_ context.Context, lvl solver.Level, _ solver.Options) (solver.Result, error) {
	n := lvl.(toyLevel).n
	return solver.Result{Verdict: solver.Solved, Value: solver.Int64(int64(n)), Optimal: true,
		Plan: json.RawMessage(strconv.Itoa(n)), Stats: solver.Stats{Nodes: 1}}, nil
}

func (toyKind) Verify(lvl solver.Level, res solver.Result) error {
	if string(res.Plan) != strconv.Itoa(lvl.(toyLevel).n) {
		return errors.New("toy: wrong plan")
	}
	return nil
}

// toyServer runs the API and a worker in this process on databases of
// the test's own, both with registry reg, and returns the API's URL.
func toyServer(t *testing.T, reg *solver.Registry) string {
	t.Helper()
	ctx, logger := t.Context(), slog.New(slog.DiscardHandler)
	dbURL := envtest.PostgresURL(t)
	if err := store.Migrate(ctx, dbURL, logger); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, dbURL, store.OpenOpts{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	addr, db := envtest.RedisAddr(t)
	opt, _ := queue.RedisOpt(addr, db)
	qc := queue.NewClient(opt)
	t.Cleanup(func() { qc.Close() })
	srv := api.New(api.Config{Store: st, Queue: qc, Registry: reg, Logger: logger})
	t.Cleanup(srv.Close)
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	wctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	w := worker.New(worker.Config{Store: st, Registry: reg, Logger: logger})
	d := queue.NewDispatcher(queue.DispatcherConfig{Store: st, Client: qc, Poll: 20 * time.Millisecond})
	go func() {
		defer close(done)
		_ = worker.Serve(wctx, w, worker.ServeConfig{Redis: opt, Concurrency: 2, Dispatcher: d})
	}()
	t.Cleanup(func() { stop(); <-done })
	return hs.URL
}

// TestToyKindAtEveryEntryPoint: a kind added to a registry, and nowhere
// else, is accepted by every entry point of a server and a puzzlectl that
// use that registry: POST /v1/jobs in each form, POST /v1/batches in each
// body form, `puzzlectl job` and `puzzlectl submit`; the served OpenAPI
// document lists it, and the kind filter of the lists takes it.
func TestToyKindAtEveryEntryPoint(t *testing.T) {
	t.Parallel()
	reg := solver.NewRegistry(toyKind{})
	url := toyServer(t, reg)
	post := func(t *testing.T, path, contentType, body string) string {
		t.Helper()
		resp, err := http.Post(url+path, contentType, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusAccepted {
			t.Fatalf("POST %s %s: %d %s", path, body, resp.StatusCode, data)
		}
		return string(data)
	}

	t.Run("POST /v1/jobs", func(t *testing.T) {
		for _, body := range []string{
			`{"kind":"toy","n":1}`,                             // a bare level
			`{"level":{"kind":"toy","n":2},"priority":"bulk"}`, // the wrapper
			`{"toy_n":3}`, // kindless, detected
			`{"level":{"toy_n":4},"labels":{"a":"b"}}`, // kindless in the wrapper
		} {
			var j struct{ Kind string }
			if err := json.Unmarshal([]byte(post(t, "/v1/jobs", "application/json", body)), &j); err != nil || j.Kind != "toy" {
				t.Fatalf("%s: kind %q (%v)", body, j.Kind, err)
			}
		}
	})
	t.Run("POST /v1/batches", func(t *testing.T) {
		for _, c := range []struct{ name, contentType, body string }{
			{"array", "application/json", `[{"kind":"toy","n":10},{"toy_n":11},{"level":{"toy_n":12},"labels":{"file":"x"}}]`},
			{"object form", "application/json", `{"levels":[{"kind":"toy","n":13},{"toy_n":14}],"priority":"interactive"}`},
			{"NDJSON", "application/x-ndjson", "{\"kind\":\"toy\",\"n\":15}\n{\"toy_n\":16}\n"},
			{"NDJSON told by its first line", "application/json", "{\"toy_n\":17}\n{\"kind\":\"toy\",\"n\":18}\n"},
		} {
			var b struct{ Total int }
			if err := json.Unmarshal([]byte(post(t, "/v1/batches", c.contentType, c.body)), &b); err != nil || b.Total < 2 {
				t.Fatalf("%s: %+v (%v)", c.name, b, err)
			}
		}
	})
	t.Run("puzzlectl", func(t *testing.T) {
		dir := t.TempDir()
		for name, body := range map[string]string{"a.json": `{"kind":"toy","n":20}`, "b.json": `{"toy_n":21}`} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		cli := func(args ...string) (int, string) {
			var out, errOut strings.Builder
			e := newEnv(strings.NewReader(""), &out, &errOut)
			e.server, e.registry = url, reg
			return runEnv(t.Context(), e, args), out.String() + errOut.String()
		}
		if code, out := cli("--json", "job", filepath.Join(dir, "b.json")); code != exitOK || !strings.Contains(out, `"kind":"toy"`) {
			t.Fatalf("puzzlectl job: exit %d\n%s", code, out)
		}
		if code, out := cli("--json", "submit", "--wait", dir); code != exitOK {
			t.Fatalf("puzzlectl submit: exit %d\n%s", code, out)
		}
		// The registry is what decides: the default one refuses the level.
		if code, _, stderr := runCLI(t, "", "--server", url, "job", filepath.Join(dir, "a.json")); code != exitError ||
			!strings.Contains(stderr, `unknown kind "toy"`) {
			t.Fatalf("puzzlectl with the default registry: exit %d, %s", code, stderr)
		}
	})
	t.Run("openapi.json and lists", func(t *testing.T) {
		resp, err := http.Get(url + "/v1/openapi.json")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var doc struct {
			Components struct {
				Schemas map[string]struct {
					Enum []string `json:"enum"`
				} `json:"schemas"`
			} `json:"components"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
			t.Fatal(err)
		}
		if got := doc.Components.Schemas["Kind"].Enum; !slices.Equal(got, []string{"toy"}) {
			t.Fatalf("served kind enum %v, want [toy]", got)
		}
		list, err := http.Get(url + "/v1/jobs?kind=toy&limit=1")
		if err != nil {
			t.Fatal(err)
		}
		list.Body.Close()
		if list.StatusCode != http.StatusOK {
			t.Fatalf("GET /v1/jobs?kind=toy: %d", list.StatusCode)
		}
	})
}
