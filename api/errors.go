package api

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/store"
)

// errorBody is every error response: what went wrong and, for bad input,
// which field.
type errorBody struct {
	Error  string       `json:"error"`
	Field  string       `json:"field,omitempty"`
	Errors []levelError `json:"errors,omitempty"`
}

// levelError names one bad level of a batch.
type levelError struct {
	Index  int    `json:"index"`
	Field  string `json:"field,omitempty"`
	Reason string `json:"reason"`
}

func writeError(w http.ResponseWriter, status int, msg, field string) {
	writeJSON(w, status, errorBody{Error: msg, Field: field})
}

// writeLevelError answers 400 for a level that failed validation.
func writeLevelError(w http.ResponseWriter, err error) {
	var fe *solver.FieldError
	if errors.As(err, &fe) {
		writeError(w, http.StatusBadRequest, fe.Error(), fe.Field)
		return
	}
	writeError(w, http.StatusBadRequest, err.Error(), "")
}

// writeStoreError maps storage errors: unknown ids are 404; when the
// database does not answer, 503 so that clients retry; anything else 500.
func (s *Server) writeStoreError(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, store.ErrNotFound) {
		writeError(w, http.StatusNotFound, err.Error(), "")
		return
	}
	if r.Context().Err() != nil {
		// The client went away: no one reads an answer, but the operator
		// learns what was dropped.
		s.cfg.Logger.Warn("request canceled", slog.String("method", r.Method), slog.String("path", r.URL.Path),
			slog.Any("error", err), slog.Any("cause", context.Cause(r.Context())))
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), time.Second)
	defer cancel()
	if perr := s.cfg.Store.Ping(ctx); perr != nil {
		s.cfg.Logger.Warn("database unavailable", slog.Any("error", err))
		w.Header().Set("Retry-After", "2")
		writeError(w, http.StatusServiceUnavailable, "database unavailable, retry later", "")
		return
	}
	s.cfg.Logger.Error("storage error", slog.Any("error", err), slog.String("path", r.URL.Path))
	writeError(w, http.StatusInternalServerError, "internal error", "")
}

// notFound answers what the catch-all /v1/ pattern catches: 405 with
// Allow when the path exists under another method, else 404.
func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	if allow := s.allowedMethods(r); len(allow) > 0 {
		w.Header().Set("Allow", strings.Join(allow, ", "))
		writeError(w, http.StatusMethodNotAllowed,
			fmt.Sprintf("method %s not allowed on %s; use %s", r.Method, r.URL.Path, strings.Join(allow, " or ")), "")
		return
	}
	writeError(w, http.StatusNotFound, "no such route: "+r.Method+" "+r.URL.Path, "")
}

// allowedMethods lists the methods that some route other than the
// catch-all serves at r's path.
func (s *Server) allowedMethods(r *http.Request) []string {
	var allow []string
	for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPatch, http.MethodDelete} {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := s.mux.Handler(probe); pattern != "" && pattern != "/v1/" {
			allow = append(allow, m)
		}
	}
	return allow
}
