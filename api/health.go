package api

import (
	"context"
	"net/http"
	"time"
)

// healthz says the process is alive; it checks nothing else.
func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// readyz says whether PostgreSQL and Redis both answer.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	status := map[string]string{"postgres": "ok", "redis": "ok"}
	code := http.StatusOK
	if err := s.cfg.Store.Ping(ctx); err != nil {
		status["postgres"], code = err.Error(), http.StatusServiceUnavailable
	}
	if err := s.cfg.Queue.Ping(); err != nil {
		status["redis"], code = err.Error(), http.StatusServiceUnavailable
	}
	writeJSON(w, code, status)
}
