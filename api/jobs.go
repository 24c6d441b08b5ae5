package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/puzzled/puzzled/queue"
	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/store"
)

// jobRequest is the body of POST /v1/jobs. A bare level (an object with a
// "kind" field) is accepted too.
type jobRequest struct {
	Level    json.RawMessage `json:"level"`
	Priority string          `json:"priority"`
	Budget   solver.Budget   `json:"budget"`
	Labels   json.RawMessage `json:"labels"`
}

// maxBudgetMS caps a job's time budget: one hour.
const maxBudgetMS = 3_600_000

func validateOptions(priority string, b solver.Budget, labels json.RawMessage) (field, reason string) {
	switch {
	case priority != "" && !queue.ValidPriority(priority):
		return "priority", fmt.Sprintf("must be %q or %q", queue.Interactive, queue.Bulk)
	case b.MaxMS < 0 || b.MaxMS > maxBudgetMS:
		return "budget.max_ms", fmt.Sprintf("must be between 0 and %d", maxBudgetMS)
	case b.MaxNodes < 0:
		return "budget.max_nodes", "must not be negative"
	}
	return checkLabels(labels)
}

func (s *Server) createJob(w http.ResponseWriter, r *http.Request) {
	body, ok := s.readBody(w, r, s.cfg.Limits.JobBody)
	if !ok {
		return
	}
	var req jobRequest
	var probe struct {
		Kind  json.RawMessage `json:"kind"`
		Level json.RawMessage `json:"level"`
	}
	if err := json.Unmarshal(body, &probe); err != nil {
		writeLevelError(w, solver.DecodeError(err))
		return
	}
	if probe.Kind != nil {
		req.Level = body
	} else if err := solver.DecodeStrict(body, &req); err != nil {
		if probe.Level == nil {
			err = missingKind(err, s.cfg.Registry.Names())
		}
		writeLevelError(w, err)
		return
	}
	if len(req.Level) == 0 {
		writeError(w, http.StatusBadRequest, "missing: a level object (with \"kind\") or {\"level\": …}", "level")
		return
	}
	if field, reason := validateOptions(req.Priority, req.Budget, req.Labels); field != "" {
		writeError(w, http.StatusBadRequest, field+": "+reason, field)
		return
	}
	lvl, kind, err := s.parseLevel(req.Level)
	if err != nil {
		writeLevelError(w, err)
		return
	}
	if req.Priority == "" {
		req.Priority = queue.Interactive
	}
	job, err := s.cfg.Store.CreateJob(r.Context(), store.JobParams{
		Level: lvl, Priority: req.Priority, Budget: req.Budget, Labels: req.Labels,
		MaxAttempts: s.cfg.Limits.MaxAttempts, SolverVersion: kind.Version(),
	})
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	if job.State == store.StateQueued {
		// Interactive jobs skip the dispatcher's poll. If Redis is down the
		// dispatcher enqueues the job later: it is safe in PostgreSQL.
		if _, err := s.cfg.Queue.Enqueue(r.Context(), job.ID, job.Priority, job.Budget.MaxMS); err != nil {
			s.cfg.Logger.Warn("enqueue failed; the dispatcher will retry", slog.Int64("job_id", job.ID), slog.Any("error", err))
		} else if err := s.cfg.Store.MarkEnqueued(r.Context(), job.ID); err != nil {
			s.cfg.Logger.Warn("mark enqueued failed", slog.Int64("job_id", job.ID), slog.Any("error", err))
		}
	}
	writeJSON(w, http.StatusAccepted, job)
}

// jobFromPath loads the job named by {id}; on failure it has answered.
func (s *Server) jobFromPath(w http.ResponseWriter, r *http.Request) (store.Job, bool) {
	id, ok := pathID(w, r)
	if !ok {
		return store.Job{}, false
	}
	job, err := s.cfg.Store.GetJob(r.Context(), id)
	if err != nil {
		s.writeStoreError(w, r, err)
		return store.Job{}, false
	}
	return job, true
}

func (s *Server) getJob(w http.ResponseWriter, r *http.Request) {
	job, ok := s.jobFromPath(w, r)
	if !ok {
		return
	}
	if job.Result != nil {
		job.Result.Plan = nil // plans can be large: GET /v1/jobs/{id}/solution
	}
	writeJSON(w, http.StatusOK, job)
}

// solution is the body of GET /v1/jobs/{id}/solution.
type solution struct {
	JobID     int64  `json:"job_id"`
	LevelHash string `json:"level_hash"`
	Kind      string `json:"kind"`
	Cached    bool   `json:"cached"`
	*store.Result
}

func (s *Server) getSolution(w http.ResponseWriter, r *http.Request) {
	job, ok := s.jobFromPath(w, r)
	if !ok {
		return
	}
	if job.Result == nil {
		writeError(w, http.StatusConflict, noResult(job), "")
		return
	}
	writeJSON(w, http.StatusOK, solution{JobID: job.ID, LevelHash: job.LevelHash, Kind: job.Kind, Cached: job.Cached, Result: job.Result})
}

// missingKind explains an unknown field in a body that has neither
// "kind" nor "level": it was most likely a level without its kind. (A
// body with "level" and an unknown field gets the plain unknown field.)
func missingKind(err error, kinds []string) error {
	var fe *solver.FieldError
	if errors.As(err, &fe) && fe.Reason == "unknown field" {
		return &solver.FieldError{Field: "kind", Reason: fmt.Sprintf(
			"missing: a bare level needs \"kind\" (one of %s), or wrap it as {\"level\": …} (found field %q)",
			strings.Join(kinds, ", "), fe.Field)}
	}
	return err
}

// noResult says why a job has no solution: not yet, or never.
func noResult(job store.Job) string {
	switch job.State {
	case store.StateQueued, store.StateRunning:
		return fmt.Sprintf("job %d is %s and has no result yet", job.ID, job.State)
	case store.StateCanceled:
		return fmt.Sprintf("job %d was canceled; it has no result", job.ID)
	case store.StateFailed:
		msg := fmt.Sprintf("job %d failed; it has no result", job.ID)
		if job.Error != nil {
			msg += ": " + *job.Error
		}
		return msg
	}
	return fmt.Sprintf("job %d is %s and has no result", job.ID, job.State)
}

func (s *Server) cancelJob(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r)
	if !ok {
		return
	}
	state, err := s.cfg.Store.CancelJob(r.Context(), id)
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	if state == store.StateCanceled {
		// Best effort: the worker also sees the state within a second.
		_ = s.cfg.Queue.Cancel(id)
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": id, "state": state})
}
