package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/puzzled/puzzled/api"
	"github.com/puzzled/puzzled/api/client"
	"github.com/puzzled/puzzled/api/wire"
	"github.com/puzzled/puzzled/internal/contracttest"
	"github.com/puzzled/puzzled/internal/envtest"
	"github.com/puzzled/puzzled/internal/waittest"
	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/queue"
	"github.com/puzzled/puzzled/solver/kinds"
	"github.com/puzzled/puzzled/store"
	"github.com/puzzled/puzzled/worker"
)

func TestMain(m *testing.M) { os.Exit(envtest.Run(m)) }

type fixture struct {
	url   string
	db    string // the database's URL
	store *store.Store
	api   *api.Server
	redis asynq.RedisConnOpt // the Redis DB the API enqueues into
}

// setup runs the API in-process on a database and Redis DB of the test's
// own; with work, an in-process worker too.
func setup(t testing.TB, cfg api.Config, work bool) *fixture {
	t.Helper()
	ctx := t.Context()
	dbURL := envtest.PostgresURL(t)
	logger := slog.New(slog.DiscardHandler)
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
	cfg.Store, cfg.Queue, cfg.Registry, cfg.Logger = st, qc, kinds.Registry(), logger
	srv := api.New(cfg)
	t.Cleanup(srv.Close)
	hs := httptest.NewServer(contracttest.Handler(t, srv))
	t.Cleanup(hs.Close)
	if work {
		wctx, stop := context.WithCancel(context.Background())
		done := make(chan struct{})
		w := worker.New(worker.Config{Store: st, Registry: kinds.Registry(), Logger: logger,
			Observer: worker.NewMetrics(cfg.Metrics)})
		d := queue.NewDispatcher(queue.DispatcherConfig{Store: st, Client: qc, Poll: 20 * time.Millisecond})
		go func() {
			defer close(done)
			_ = worker.Serve(wctx, w, worker.ServeConfig{Redis: opt, Concurrency: 4, Dispatcher: d})
		}()
		t.Cleanup(func() { stop(); <-done })
	}
	return &fixture{url: hs.URL, db: dbURL, store: st, api: srv, redis: opt}
}

func request(t *testing.T, method, url, token, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data)
}

const level = `{"kind":"twoends","values":[3,1,2]}`

func TestAuth(t *testing.T) {
	t.Parallel()
	f := setup(t, api.Config{Tokens: []api.StaticToken{{Name: "ci", Token: "env-secret"}}}, false)
	if _, err := f.store.CreateToken(t.Context(), store.TokenParams{Name: "dash", Hash: api.HashToken("db-ro-secret"), ReadOnly: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.CreateToken(t.Context(), store.TokenParams{Name: "studio", Hash: api.HashToken("db-secret")}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, method, path, token string
		want                      int
	}{
		{"no token", "POST", "/v1/jobs", "", 401},
		{"wrong token", "POST", "/v1/jobs", "nope", 401},
		{"no token on a read", "GET", "/v1/stats", "", 401},
		{"read-only token submitting", "POST", "/v1/jobs", "db-ro-secret", 403},
		{"read-only token canceling", "POST", "/v1/batches/1/cancel", "db-ro-secret", 403},
		{"read-only token reading", "GET", "/v1/stats", "db-ro-secret", 200},
		{"env token", "POST", "/v1/jobs", "env-secret", 202},
		{"stored token", "POST", "/v1/jobs", "db-secret", 202},
		{"health needs no token", "GET", "/healthz", "", 200},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got, body := request(t, c.method, f.url+c.path, c.token, level); got != c.want {
				t.Fatalf("%s %s = %d (%s), want %d", c.method, c.path, got, body, c.want)
			}
		})
	}
}

func TestStoredTokenTurnsAuthOn(t *testing.T) {
	t.Parallel()
	dbTokens := setup(t, api.Config{}, false)
	if _, err := dbTokens.store.CreateToken(t.Context(), store.TokenParams{Name: "first", Hash: api.HashToken("s3cret")}); err != nil {
		t.Fatal(err)
	}
	if got, _ := request(t, "POST", dbTokens.url+"/v1/jobs", "", level); got != 401 {
		t.Fatalf("a stored token exists: unauthenticated submit = %d, want 401", got)
	}
	if got, _ := request(t, "POST", dbTokens.url+"/v1/jobs", "s3cret", level); got != 202 {
		t.Fatalf("with the token: %d, want 202", got)
	}
}

func TestOpenAPIMatchesRoutes(t *testing.T) {
	t.Parallel()
	f := setup(t, api.Config{}, false)
	_, body := request(t, "GET", f.url+"/v1/openapi.json", "", "")
	var doc struct {
		OpenAPI string                    `json:"openapi"`
		Paths   map[string]map[string]any `json:"paths"`
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil || !strings.HasPrefix(doc.OpenAPI, "3.") {
		t.Fatalf("not an OpenAPI 3 document: %v", err)
	}
	var documented []string
	for path, ops := range doc.Paths {
		for method := range ops {
			documented = append(documented, strings.ToUpper(method)+" "+path)
		}
	}
	routes := f.api.Routes()
	slices.Sort(documented)
	slices.Sort(routes)
	if !slices.Equal(documented, routes) {
		t.Fatalf("documented routes differ from served ones:\ndocumented %v\nserved     %v", documented, routes)
	}
}

func TestRateLimitPerToken(t *testing.T) {
	t.Parallel()
	// A token every 100 s (burst 1): none comes back during the test, however
	// slow a loaded machine makes its requests.
	f := setup(t, api.Config{Limits: api.Limits{SubmitRate: 0.01},
		Tokens: []api.StaticToken{{Name: "a", Token: "a"}, {Name: "b", Token: "b"}}}, false)
	var codes []int
	for range 6 {
		code, _ := request(t, "POST", f.url+"/v1/jobs", "a", level)
		codes = append(codes, code)
	}
	if !slices.Contains(codes, 429) || codes[0] != 202 {
		t.Fatalf("token a: %v, want 202 then 429 past the burst of 1", codes)
	}
	if code, _ := request(t, "POST", f.url+"/v1/jobs", "b", level); code != 202 {
		t.Fatalf("token b has its own bucket: %d", code)
	}
	if code, body := request(t, "GET", f.url+"/v1/stats", "a", ""); code != 200 {
		t.Fatalf("reads are not limited: %d %s", code, body)
	}
}

func TestReportStatsAndMetrics(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	f := setup(t, api.Config{Metrics: reg}, true)
	c := client.New(f.url)
	var levels []json.RawMessage
	for i := range 40 {
		levels = append(levels, json.RawMessage(fmt.Sprintf(`{"kind":"twoends","values":[%d,1,%d]}`, i, i%5)))
	}
	levels = append(levels, levels[3]) // one duplicate
	id, err := c.CreateBatch(t.Context(), levels, jobtype.Options{})
	if err != nil {
		t.Fatal(err)
	}
	waittest.WaitFor(t, time.Minute, "the batch to be done", func() bool {
		b, err := c.GetBatch(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		return b.Done == 1
	})
	code, body := request(t, "GET", fmt.Sprintf("%s/v1/batches/%d/report", f.url, id), "", "")
	var rep wire.Report
	if err := json.Unmarshal([]byte(body), &rep); code != 200 || err != nil {
		t.Fatalf("report: %d %v %s", code, err, body)
	}
	tw := rep.Kinds["twoends"]
	if rep.Jobs != 41 || rep.Verdicts["solved"] != 41 || rep.Cached != 1 || tw == nil || tw.Jobs != 41 ||
		len(rep.Slowest) != 10 || len(rep.Unsolvable) != 0 || len(rep.Unknown) != 0 {
		t.Fatalf("report = %+v", rep)
	}
	if rep.Nodes.P50 <= 0 || rep.Nodes.P95 < rep.Nodes.P50 || rep.SolveMS.P99 < rep.SolveMS.P50 {
		t.Fatalf("percentiles = %+v %+v", rep.SolveMS, rep.Nodes)
	}
	code, body = request(t, "GET", f.url+"/v1/stats?since="+time.Now().Add(-time.Hour).UTC().Format(time.RFC3339), "", "")
	var st wire.Stats
	if err := json.Unmarshal([]byte(body), &st); code != 200 || err != nil || st.Jobs != 41 || st.Kinds["twoends"].Verdicts["solved"] != 41 {
		t.Fatalf("stats: %d %v %s", code, err, body)
	}
	if code, _ := request(t, "GET", f.url+"/v1/stats?since=yesterday", "", ""); code != 400 {
		t.Fatalf("bad since: %d", code)
	}
	if code, _ := request(t, "GET", f.url+"/v1/batches/777/report", "", ""); code != 404 {
		t.Fatalf("unknown batch report: %d", code)
	}
	_, metrics := request(t, "GET", f.url+"/metrics", "", "")
	for _, want := range []string{
		`puzzled_jobs{kind="twoends",state="done"} 41`,
		`puzzled_http_request_duration_seconds_count{route="POST /v1/batches",status="202"} 1`,
		`puzzled_solve_duration_seconds_count{kind="twoends",verdict="solved"} 40`,
		`puzzled_nodes_explored_total{kind="twoends"}`,
		`puzzled_queue_tasks{queue="bulk",state="pending"}`,
	} {
		if !bytes.Contains([]byte(metrics), []byte(want)) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}
