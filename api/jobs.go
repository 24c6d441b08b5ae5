package api

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/puzzled/puzzled/api/wire"
	"github.com/puzzled/puzzled/queue"
	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/store"
)

// maxBudgetMS caps a job's time budget: one hour.
const maxBudgetMS = 3_600_000

func validateOptions(priority string, b solver.Budget, d *wire.DifficultyOption, labels json.RawMessage) (field, reason string) {
	switch {
	case priority != "" && !queue.ValidPriority(priority):
		return "priority", fmt.Sprintf("must be %q or %q", queue.Interactive, queue.Bulk)
	case b.MaxMS < 0 || b.MaxMS > maxBudgetMS:
		return "budget.max_ms", fmt.Sprintf("must be between 0 and %d", maxBudgetMS)
	case b.MaxNodes < 0:
		return "budget.max_nodes", "must not be negative"
	}
	if field, reason := checkDifficulty(d); field != "" {
		return field, reason
	}
	return checkLabels(labels)
}

func (s *Server) createJob(w http.ResponseWriter, r *http.Request) {
	if !acceptContentType(w, r, mediaJSON) {
		return
	}
	body, ok := s.readBody(w, r, s.cfg.Limits.JobBody)
	if !ok {
		return
	}
	req, err := decodeJobRequest(body)
	if err != nil {
		writeLevelError(w, err)
		return
	}
	if len(req.Level) == 0 {
		writeError(w, http.StatusBadRequest, "missing: a level object (with \"kind\") or {\"level\": …}", "level")
		return
	}
	if field, reason := validateOptions(req.Priority, req.Budget, req.Difficulty, req.Labels); field != "" {
		writeError(w, http.StatusBadRequest, field+": "+reason, field)
		return
	}
	lvl, kind, err := s.parseLevelAs(req.Kind, req.Level)
	if err != nil {
		writeLevelError(w, err)
		return
	}
	hooks, err := s.callbackWebhooks(r.Context(), req.Callbacks, false)
	if err != nil {
		s.writeOptionError(w, r, err)
		return
	}
	if req.Priority == "" {
		req.Priority = queue.Interactive
	}
	job, err := queue.Submit(r.Context(), s.cfg.Store, s.cfg.Queue, store.JobParams{
		Level: lvl, Priority: req.Priority, Budget: req.Budget, Labels: req.Labels,
		Playouts:    playoutsFor(req.Priority, req.Difficulty),
		MaxAttempts: s.cfg.Limits.MaxAttempts, SolverVersion: kind.Version(),
	}, s.cfg.Logger)
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	if err := s.cfg.Store.AddJobWebhooks(r.Context(), job.ID, hooks); err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	writeJSON(w, http.StatusAccepted, toWireJob(job))
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
	writeJSON(w, http.StatusOK, toWireJob(job))
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
	writeJSON(w, http.StatusOK, wire.Solution{JobID: job.ID, LevelHash: job.LevelHash, Kind: job.Kind, Cached: job.Cached,
		Result: toWireResult(job.Result)})
}

// noResult says why a job has no solution: not yet, or never.
func noResult(job store.Job) string {
	switch job.State {
	case wire.Queued, wire.Running:
		return fmt.Sprintf("job %d is %s and has no result yet", job.ID, job.State)
	case wire.Canceled:
		return fmt.Sprintf("job %d was canceled; it has no result", job.ID)
	case wire.Failed:
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
	if state == wire.Canceled {
		// Best effort: the worker also sees the state within a second.
		_ = s.cfg.Queue.Cancel(id)
	}
	writeJSON(w, http.StatusOK, wire.JobCancel{ID: id, State: state})
}
