// Package api is puzzled's HTTP API: every /v1 route is registered in this
// file, handlers are grouped by resource (jobs.go, batches.go, levels.go),
// and every error is JSON with a precise status: 400 for bad input (naming
// the field), 404 for unknown ids, 413 for oversized bodies, 503 while a
// backing service is down. Bad input never causes a 500.
package api

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/puzzled/puzzled/queue"
	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/store"
)

// Config configures the API.
type Config struct {
	Store    *store.Store
	Queue    *queue.Client
	Registry *solver.Registry
	Logger   *slog.Logger
	Limits   Limits
	// Tokens are API tokens from configuration; tokens stored in the
	// database (puzzled token create) count too. With any token, every /v1
	// call needs one.
	Tokens []StaticToken
	// Metrics is the registry served at /metrics; the API adds its own
	// collectors. Nil means a new registry.
	Metrics *prometheus.Registry
	// Listener wakes long-polls (?wait=) when jobs become final; its owner
	// runs it. Nil: the server starts its own at the first long-poll and
	// stops it in Close.
	Listener *store.Listener
}

// Limits bound what one request may ask for.
type Limits struct {
	JobBody     int64 // bytes of a POST /jobs body (default 64 MiB)
	BatchBody   int64 // bytes of a POST /batches body (default 512 MiB)
	BatchLevels int   // levels in one batch (default 100,000)
	MaxAttempts int   // attempts per job (default 5)
	// SubmitRate is the sustained submissions (POST /v1/jobs and
	// /v1/batches) per second allowed to one token, or one client address
	// when auth is off (default 20, burst 2×).
	SubmitRate float64
}

func (l Limits) withDefaults() Limits {
	if l.JobBody <= 0 {
		l.JobBody = 64 << 20
	}
	if l.BatchBody <= 0 {
		l.BatchBody = 512 << 20
	}
	if l.BatchLevels <= 0 {
		l.BatchLevels = 100_000
	}
	if l.MaxAttempts <= 0 {
		l.MaxAttempts = 5
	}
	if l.SubmitRate <= 0 {
		l.SubmitRate = 20
	}
	return l
}

// Server serves the API.
type Server struct {
	cfg     Config
	mux     *http.ServeMux
	auth    *authenticator
	limits  *rateLimits
	metrics *httpMetrics
	v1      []string // the /v1 route patterns, for Routes
	waiter  *waiter
}

// New returns the API's handler with every route registered.
func New(cfg Config) *Server {
	cfg.Limits = cfg.Limits.withDefaults()
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Metrics == nil {
		cfg.Metrics = prometheus.NewRegistry()
	}
	s := &Server{
		cfg:     cfg,
		mux:     http.NewServeMux(),
		auth:    newAuthenticator(cfg.Store, cfg.Tokens),
		limits:  newRateLimits(cfg.Limits.SubmitRate),
		metrics: newHTTPMetrics(cfg.Metrics),
		waiter:  newWaiter(cfg.Store, cfg.Listener),
	}
	cfg.Metrics.MustRegister(newJobsCollector(cfg.Store), queue.NewCollector(cfg.Queue.Inspector()))
	s.routes()
	return s
}

// access is what a route needs from the caller's token.
type access int

const (
	read   access = iota // any valid token
	write                // a token that is not read-only
	submit               // write, and within the submission rate limit
)

func (s *Server) routes() {
	s.mux.HandleFunc("GET /healthz", s.healthz)
	s.mux.HandleFunc("GET /readyz", s.readyz)
	s.mux.Handle("GET /metrics", promhttp.HandlerFor(s.cfg.Metrics, promhttp.HandlerOpts{}))

	s.handle("POST /v1/jobs", submit, s.createJob)
	s.handle("GET /v1/jobs", read, s.listJobs)
	s.handle("GET /v1/jobs/{id}", read, s.getJobWaiting)
	s.handle("GET /v1/jobs/{id}/solution", read, s.getSolution)
	s.handle("POST /v1/jobs/{id}/cancel", write, s.cancelJob)

	s.handle("POST /v1/batches", submit, s.createBatch)
	s.handle("GET /v1/batches", read, s.listBatches)
	s.handle("GET /v1/batches/{id}", read, s.getBatchWaiting)
	s.handle("GET /v1/batches/{id}/results", read, s.batchResults)
	s.handle("GET /v1/batches/{id}/report", read, s.batchReport)
	s.handle("POST /v1/batches/{id}/cancel", write, s.cancelBatch)

	s.handle("GET /v1/levels", read, s.listLevels)
	s.handle("GET /v1/levels/{hash}", read, s.getLevel)
	s.handle("GET /v1/levels/{hash}/results", read, s.levelResults)
	s.handle("GET /v1/stats", read, s.stats)
	s.handle("GET /v1/openapi.json", read, s.openAPI)
	s.handle("/v1/", read, s.notFound)
}

// handle registers a /v1 route behind auth, rate limits and metrics.
func (s *Server) handle(pattern string, a access, h http.HandlerFunc) {
	s.v1 = append(s.v1, pattern)
	s.mux.Handle(pattern, s.metrics.instrument(pattern, s.guard(a, h)))
}

// Routes lists the /v1 route patterns ("GET /v1/jobs/{id}"), without the
// catch-all that answers 404.
func (s *Server) Routes() []string {
	var out []string
	for _, p := range s.v1 {
		if strings.Contains(p, " ") {
			out = append(out, p)
		}
	}
	return out
}

// guard answers 401 without a valid token (when tokens are configured),
// 403 for a read-only token on a write route, 429 over the rate limit.
func (s *Server) guard(a access, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p, err := s.auth.authenticate(r)
		switch {
		case errors.Is(err, errNoToken), errors.Is(err, errBadToken):
			w.Header().Set("WWW-Authenticate", `Bearer realm="puzzled"`)
			writeError(w, http.StatusUnauthorized, err.Error(), "")
			return
		case err != nil:
			s.writeStoreError(w, r, err)
			return
		case a >= write && p.readOnly:
			writeError(w, http.StatusForbidden, "this token is read-only", "")
			return
		case a == submit:
			if wait, ok := s.limits.allow(p.name); !ok {
				w.Header().Set("Retry-After", strconv.Itoa(int(wait.Seconds())+1))
				writeError(w, http.StatusTooManyRequests,
					fmt.Sprintf("rate limit: at most %g submissions per second per token", s.cfg.Limits.SubmitRate), "")
				return
			}
		}
		h(w, r)
	}
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if v := recover(); v != nil && v != http.ErrAbortHandler {
			s.cfg.Logger.Error("handler panic", slog.Any("panic", v), slog.String("path", r.URL.Path))
			writeError(w, http.StatusInternalServerError, "internal error", "")
		}
	}()
	s.mux.ServeHTTP(w, r)
}
