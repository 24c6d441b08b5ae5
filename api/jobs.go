package api

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/puzzled/puzzled/api/wire"
	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/queue"
	"github.com/puzzled/puzzled/store"
)

func (s *Server) createJob(w http.ResponseWriter, r *http.Request) {
	if !acceptContentType(w, r, mediaJSON) {
		return
	}
	body, ok := s.readBody(w, r, s.cfg.Limits.JobBody)
	if !ok {
		return
	}
	spec, err := decodeJobRequest(s.cfg.Registry, body)
	if err != nil {
		writeLevelError(w, err)
		return
	}
	if len(spec.Level) == 0 {
		writeError(w, http.StatusBadRequest, "missing: a level object (with \"kind\") or {\"level\": …}", "level")
		return
	}
	parsed, err := spec.Normalize(s.cfg.Registry, jobtype.Alone)
	if err != nil {
		writeLevelError(w, err)
		return
	}
	project, err := s.requestProject(r, spec.Project, roleSubmit)
	if !s.scopeAnswered(w, r, err) {
		return
	}
	hooks, err := s.callbackWebhooks(r.Context(), spec.Callbacks, false)
	if err != nil {
		s.writeOptionError(w, r, err)
		return
	}
	lvl, kind := s.storedLevel(parsed)
	job, err := queue.Submit(r.Context(), s.cfg.Store, s.cfg.Queue, store.JobParams{
		Level: lvl, Priority: spec.Priority, Budget: spec.Budget, Labels: spec.Labels, Playouts: spec.Playouts(),
		MaxAttempts: s.cfg.Limits.MaxAttempts, SolverVersion: kind.Version(), Project: project,
	}, s.cfg.Logger)
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	if err := s.cfg.Store.AddJobWebhooks(r.Context(), job.ID, hooks); err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	s.audit(r, &project, "job.create", strconv.FormatInt(job.ID, 10), nil)
	out := toWireJob(job)
	out.Project = s.projectName(r.Context(), job.ProjectID)
	writeJSON(w, http.StatusAccepted, out)
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
	out := toWireJob(job)
	out.Project = s.projectName(r.Context(), job.ProjectID)
	writeJSON(w, http.StatusOK, out)
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
	case jobtype.Queued, jobtype.Running:
		return fmt.Sprintf("job %d is %s and has no result yet", job.ID, job.State)
	case jobtype.Canceled:
		return fmt.Sprintf("job %d was canceled; it has no result", job.ID)
	case jobtype.Failed:
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
	if state == jobtype.Canceled {
		// Best effort: the worker also sees the state within a second.
		_ = s.cfg.Queue.Cancel(id)
	}
	s.auditResource(r, store.ResJob, "job.cancel", id, map[string]any{"state": state})
	writeJSON(w, http.StatusOK, wire.JobCancel{ID: id, State: state})
}
