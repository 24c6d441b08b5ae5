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
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/puzzled/puzzled/internal/webhook"
	"github.com/puzzled/puzzled/queue"
	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/store"
	"github.com/puzzled/puzzled/web"
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
	// Webhooks checks the callback URLs of new batches and jobs (its
	// allow-list) and sets the retries of redeliveries; the worker
	// processes deliver (internal/webhook).
	Webhooks webhook.Config
}

// Limits bound what one request may ask for.
type Limits struct {
	JobBody     int64 // bytes of a POST /jobs body (default 64 MiB)
	BatchBody   int64 // bytes of a POST /batches body (default 512 MiB)
	BatchLevels int   // levels in one batch (default 100,000)
	MaxAttempts int   // attempts per job (default 5)
	// BatchUploads is how many POST /v1/batches bodies are read at once;
	// beyond it 503 with Retry-After (default 4).
	BatchUploads int
	// MinUploadRate (bytes/s, default 8 KiB/s) is the least average rate
	// of a request body after UploadGrace (default 10 s); UploadIdle
	// (default 30 s) the longest wait for any byte. Slower bodies get 408.
	MinUploadRate float64
	UploadGrace   time.Duration
	UploadIdle    time.Duration
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
	if l.BatchUploads <= 0 {
		l.BatchUploads = 4
	}
	if l.MinUploadRate <= 0 {
		l.MinUploadRate = 8 << 10
	}
	if l.UploadGrace <= 0 {
		l.UploadGrace = 10 * time.Second
	}
	if l.UploadIdle <= 0 {
		l.UploadIdle = 30 * time.Second
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
	uploads uploadSlots
	waiter  *waiter
	// playSlots bounds the solves POST /v1/play runs at once (play.go).
	playSlots chan struct{}
	patterns  []string // the route patterns, for Routes
	// openAPIDoc is the document served at /v1/openapi.json (openAPIFor).
	openAPIDoc []byte
	// nameOfProject caches project names by id (projectName).
	nameOfProject sync.Map
}

// New returns the API's handler with every route registered.
func New(cfg Config) *Server {
	cfg.Limits = cfg.Limits.withDefaults()
	cfg.Webhooks = cfg.Webhooks.WithDefaults()
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
		uploads: make(uploadSlots, cfg.Limits.BatchUploads),
		waiter:  newWaiter(cfg.Store, cfg.Listener),

		playSlots:  make(chan struct{}, playSolves),
		openAPIDoc: openAPIFor(cfg.Registry),
	}
	s.auth.watch = s.watchRevokes
	cfg.Metrics.MustRegister(newJobsCollector(cfg.Store), queue.NewCollector(cfg.Queue.Inspector()))
	s.routes()
	return s
}

func (s *Server) routes() {
	s.handleOpen("GET /healthz", s.healthz)
	s.handleOpen("GET /readyz", s.readyz)
	s.handleOpen("GET /metrics", promhttp.HandlerFor(s.cfg.Metrics, promhttp.HandlerOpts{}).ServeHTTP)

	s.handle("POST /v1/jobs", needSubmit, s.createJob)
	s.handle("GET /v1/jobs", needRead, s.listJobs)
	s.handle("GET /v1/jobs/{id}", readOf(store.ResJob), s.getJobWaiting)
	s.handle("GET /v1/jobs/{id}/solution", readOf(store.ResJob), s.getSolution)
	s.handle("GET /v1/jobs/{id}/replay", readOf(store.ResJob), s.replayJob)
	s.handle("POST /v1/jobs/{id}/cancel", submitOn(store.ResJob), s.cancelJob)
	s.handle("POST /v1/jobs/{id}/repair", need{role: roleSubmit, res: store.ResJob, rate: true}, s.createRepair)

	s.handle("POST /v1/batches", needSubmit, s.createBatch)
	s.handle("GET /v1/batches", needRead, s.listBatches)
	s.handle("GET /v1/batches/{id}", readOf(store.ResBatch), s.getBatchWaiting)
	s.handle("GET /v1/batches/{id}/results", readOf(store.ResBatch), s.batchResults)
	s.handle("GET /v1/batches/{id}/report", readOf(store.ResBatch), s.batchReport)
	s.handle("POST /v1/batches/{id}/cancel", submitOn(store.ResBatch), s.cancelBatch)
	s.handle("GET /v1/batches/{id}/deliveries", readOf(store.ResBatch), s.batchDeliveries)
	s.handle("GET /v1/jobs/{id}/deliveries", readOf(store.ResJob), s.jobDeliveries)
	s.handle("POST /v1/webhook-events/{id}/redeliver", submitOn(store.ResWebhookEvent), s.redeliver)
	s.handle("POST /v1/webhook-secrets", need{role: roleSubmit}, s.createWebhookSecret)
	s.handle("GET /v1/webhook-secrets", needRead, s.listWebhookSecrets)
	s.handle("DELETE /v1/webhook-secrets/{id}", need{role: roleSubmit}, s.revokeWebhookSecret)

	s.handle("POST /v1/generate", needSubmit, s.createGeneration)
	s.handle("GET /v1/generations/{id}", readOf(store.ResGeneration), s.getGeneration)
	s.handle("POST /v1/generations/{id}/cancel", submitOn(store.ResGeneration), s.cancelGeneration)

	s.handle("GET /v1/levels", needRead, s.listLevels)
	s.handle("GET /v1/levels/{hash}", need{role: roleRead, level: true}, s.getLevel)
	s.handle("GET /v1/levels/{hash}/results", need{role: roleRead, level: true}, s.levelResults)
	s.handle("POST /v1/levels/validate", needRead, s.validateLevel)
	s.handle("POST /v1/play", needRead, s.play)
	s.handle("GET /v1/stats", needRead, s.stats)
	s.handle("GET /v1/openapi.json", needRead, s.openAPI)

	s.handle("POST /v1/projects", need{operator: true}, s.createProject)
	s.handle("GET /v1/projects", needRead, s.listProjects)
	s.handle("PATCH /v1/projects/{project}", need{operator: true}, s.updateProject)
	s.handle("POST /v1/tokens", needAdmin, s.createToken)
	s.handle("GET /v1/tokens", needAdmin, s.listTokens)
	s.handle("DELETE /v1/tokens/{id}", needAdmin, s.revokeToken)
	s.handle("GET /v1/audit", needAdmin, s.listAudit)
	s.handle("/v1/", needRead, s.notFound)

	s.mux.Handle("/", web.Handler()) // the workbench pages: / and /ui/…
}

// handle registers a /v1 route behind auth, rate limits and metrics; a
// POST route also refuses cross-site requests (crosssite.go).
func (s *Server) handle(pattern string, n need, h http.HandlerFunc) {
	s.patterns = append(s.patterns, pattern)
	guarded := s.guard(n, h)
	post := strings.HasPrefix(pattern, http.MethodPost+" ")
	s.mux.Handle(pattern, s.metrics.instrument(pattern, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		apiHeaders(w)
		if post && refuseCrossSite(w, r) {
			return
		}
		guarded(w, r)
	})))
}

// handleOpen registers a route that needs no token (health and metrics).
func (s *Server) handleOpen(pattern string, h http.HandlerFunc) {
	s.patterns = append(s.patterns, pattern)
	s.mux.HandleFunc(pattern, h)
}

// Routes lists the route patterns ("GET /v1/jobs/{id}", "GET /healthz"),
// without the catch-all that answers 404: what openapi.json must document.
func (s *Server) Routes() []string {
	var out []string
	for _, p := range s.patterns {
		if strings.Contains(p, " ") {
			out = append(out, p)
		}
	}
	return out
}

// guard answers 401 without a valid token (when tokens are configured),
// 404 for a resource of a project the token cannot read, 403 for a role
// too low (scope.go), 429 over the rate limit.
func (s *Server) guard(n need, h http.HandlerFunc) http.HandlerFunc {
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
		case !s.checkScope(w, r, p, n):
			return
		case n.rate:
			if wait, ok := s.limits.allow(p.name); !ok {
				w.Header().Set("Retry-After", strconv.Itoa(int(wait.Seconds())+1))
				writeError(w, http.StatusTooManyRequests,
					fmt.Sprintf("rate limit: at most %g submissions per second per %s", s.cfg.Limits.SubmitRate, p.kind()), "")
				return
			}
		}
		h(w, withPrincipal(r, p))
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
