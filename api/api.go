// Package api is puzzled's HTTP API: every /v1 route is registered in this
// file, handlers are grouped by resource (jobs.go, batches.go, levels.go),
// and every error is JSON with a precise status: 400 for bad input (naming
// the field), 404 for unknown ids, 413 for oversized bodies, 503 while a
// backing service is down. Bad input never causes a 500.
package api

import (
	"log/slog"
	"net/http"

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
}

// Limits bound what one request may ask for.
type Limits struct {
	JobBody     int64 // bytes of a POST /jobs body (default 64 MiB)
	BatchBody   int64 // bytes of a POST /batches body (default 512 MiB)
	BatchLevels int   // levels in one batch (default 100,000)
	MaxAttempts int   // attempts per job (default 5)
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
	return l
}

// Server serves the API.
type Server struct {
	cfg Config
	mux *http.ServeMux
}

// New returns the API's handler with every route registered.
func New(cfg Config) *Server {
	cfg.Limits = cfg.Limits.withDefaults()
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{cfg: cfg, mux: http.NewServeMux()}
	s.routes()
	return s
}

func (s *Server) routes() {
	s.mux.HandleFunc("GET /healthz", s.healthz)
	s.mux.HandleFunc("GET /readyz", s.readyz)

	s.mux.HandleFunc("POST /v1/jobs", s.createJob)
	s.mux.HandleFunc("GET /v1/jobs/{id}", s.getJob)
	s.mux.HandleFunc("GET /v1/jobs/{id}/solution", s.getSolution)
	s.mux.HandleFunc("POST /v1/jobs/{id}/cancel", s.cancelJob)

	s.mux.HandleFunc("POST /v1/batches", s.createBatch)
	s.mux.HandleFunc("GET /v1/batches/{id}", s.getBatch)
	s.mux.HandleFunc("GET /v1/batches/{id}/results", s.batchResults)
	s.mux.HandleFunc("POST /v1/batches/{id}/cancel", s.cancelBatch)

	s.mux.HandleFunc("GET /v1/levels/{hash}", s.getLevel)
	s.mux.HandleFunc("/v1/", s.notFound)
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
