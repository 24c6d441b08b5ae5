package api

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/puzzled/puzzled/api/wire"
	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/difficulty"
	"github.com/puzzled/puzzled/solver/generate"
	"github.com/puzzled/puzzled/solver/repair"
	"github.com/puzzled/puzzled/store"
)

// Generations (docs/generate.md): POST /v1/generate and POST
// /v1/jobs/{id}/repair store a generation with an empty batch and hand
// its task to asynq; a worker fills the batch with the levels it keeps.
// GET /v1/generations/{id} is its progress, POST …/cancel stops it.

func (s *Server) createGeneration(w http.ResponseWriter, r *http.Request) {
	if !acceptContentType(w, r, mediaJSON) {
		return
	}
	body, ok := s.readBody(w, r, s.cfg.Limits.JobBody)
	if !ok {
		return
	}
	var req wire.GenerateRequest
	if err := solver.DecodeStrict(body, &req); err != nil {
		writeLevelError(w, err)
		return
	}
	if len(req.Template) == 0 {
		writeError(w, http.StatusBadRequest, "missing: the template level", "template")
		return
	}
	parsed, err := (&jobtype.Spec{Level: req.Template}).ParseLevel(s.cfg.Registry)
	if err != nil {
		writeLevelError(w, prefixField("template", err))
		return
	}
	tpl, kind := s.storedLevel(parsed)
	if err := (jobtype.Options{Budget: req.Budget, Difficulty: req.Difficulty, Labels: req.Labels}).Validate(); err != nil {
		writeLevelError(w, err)
		return
	}
	project, err := s.requestProject(r, req.Project, roleSubmit)
	if !s.scopeAnswered(w, r, err) {
		return
	}
	playouts := difficulty.DefaultPlayouts
	if req.Difficulty != nil {
		playouts = req.Difficulty.Playouts
	}
	lvl, _ := kind.Parse(tpl.Body)
	g := generate.Request{Template: lvl, Count: req.Count, MinScore: req.Score.Min, MaxScore: req.Score.Max,
		Seed: req.Seed, MaxCandidates: req.MaxCandidates}
	if err := g.Check(kind); err != nil {
		writeError(w, http.StatusBadRequest, err.Error(), "")
		return
	}
	if playouts == 0 {
		writeError(w, http.StatusBadRequest, "difficulty.playouts: a generation rates every candidate, 0 is not allowed", "difficulty.playouts")
		return
	}
	s.startGeneration(w, r, store.GenerationParams{Mode: store.ModeGenerate, Template: tpl, Labels: req.Labels, Project: project,
		Request: store.GenerationRequest{Count: req.Count, MinScore: req.Score.Min, MaxScore: req.Score.Max, Seed: req.Seed,
			MaxCandidates: g.MaxTried(), Budget: req.Budget, Playouts: playouts}})
}

func (s *Server) createRepair(w http.ResponseWriter, r *http.Request) {
	job, ok := s.jobFromPath(w, r)
	if !ok {
		return
	}
	var req wire.RepairRequest
	if r.ContentLength != 0 {
		if !acceptContentType(w, r, mediaJSON) {
			return
		}
		body, ok := s.readBody(w, r, 64<<10)
		if !ok {
			return
		}
		if err := solver.DecodeStrict(body, &req); len(body) > 0 && err != nil {
			writeLevelError(w, err)
			return
		}
	}
	if job.Result == nil || job.Result.Verdict != solver.Unsolvable {
		writeError(w, http.StatusConflict, fmt.Sprintf("job %d is not proven unsolvable: only unsolvable levels are repaired", job.ID), "")
		return
	}
	if err := (jobtype.Options{Budget: req.Budget, Labels: req.Labels}).Validate(); err != nil {
		writeLevelError(w, err)
		return
	}
	lvl, err := s.cfg.Store.GetLevel(r.Context(), job.LevelHash, nil) // its body only
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	parsed, err := s.cfg.Registry.ParseAs(job.Kind, lvl.Body)
	if err != nil {
		s.writeStoreError(w, r, fmt.Errorf("stored level of job %d: %w", job.ID, err))
		return
	}
	kind := s.cfg.Registry.KindOf(parsed)
	rr, err := repair.Request{Level: parsed, MaxEdits: req.MaxEdits, Count: req.Count, MaxCandidates: req.MaxCandidates}.Normalize(kind)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error(), "")
		return
	}
	if len(collectEdits(kind, parsed)) == 0 {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("a %s level of this mode has no edits to try", job.Kind), "")
		return
	}
	s.startGeneration(w, r, store.GenerationParams{Mode: store.ModeRepair, Template: lvl.Level, SourceJob: &job.ID, Labels: req.Labels,
		Project: job.ProjectID,
		Request: store.GenerationRequest{Count: rr.Count, MaxEdits: rr.MaxEdits, MaxCandidates: rr.MaxCandidates, Budget: req.Budget}})
}

// collectEdits lists at most one edit of size 1, to tell a level that has
// edits from one that has none (a zuma ammo level).
func collectEdits(kind solver.Kind, lvl solver.Level) []repair.Edit {
	var out []repair.Edit
	for e := range kind.(repair.Editor).Edits(lvl, 1) {
		out = append(out, e)
		break
	}
	return out
}

// startGeneration stores the generation and hands its task to asynq. When
// Redis does not answer, the generation stays running and the dispatcher
// enqueues it later (queue.Dispatcher).
func (s *Server) startGeneration(w http.ResponseWriter, r *http.Request, p store.GenerationParams) {
	g, err := s.cfg.Store.CreateGeneration(r.Context(), p)
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	if err := s.cfg.Queue.EnqueueGenerate(r.Context(), g.ID); err != nil {
		s.cfg.Logger.Warn("generation not enqueued; the dispatcher will", "generation_id", g.ID, "error", err)
	}
	s.audit(r, &p.Project, "generation.create", strconv.FormatInt(g.ID, 10), map[string]any{"mode": p.Mode, "batch": g.BatchID})
	w.Header().Set("Location", fmt.Sprintf("/v1/generations/%d", g.ID))
	writeJSON(w, http.StatusAccepted, toWireGeneration(g))
}

func (s *Server) getGeneration(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r)
	if !ok {
		return
	}
	g, err := s.cfg.Store.GetGeneration(r.Context(), id)
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toWireGeneration(g))
}

func (s *Server) cancelGeneration(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r)
	if !ok {
		return
	}
	g, err := s.cfg.Store.CancelGeneration(r.Context(), id)
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	s.auditResource(r, store.ResGeneration, "generation.cancel", id, nil)
	writeJSON(w, http.StatusOK, toWireGeneration(g))
}

func toWireGeneration(g store.Generation) wire.Generation {
	out := wire.Generation{ID: g.ID, BatchID: g.BatchID, Mode: g.Mode, Kind: g.Kind, Template: g.Template, JobID: g.SourceJob,
		State: g.State, Count: g.Request.Count, Seed: g.Request.Seed, MaxCandidates: g.Request.MaxCandidates,
		MaxEdits: g.Request.MaxEdits, Budget: g.Request.Budget, Playouts: g.Request.Playouts, Tried: g.Tried, Kept: g.Kept,
		Rejected: g.Rejected, CreatedAt: g.CreatedAt, FinishedAt: g.FinishedAt}
	if g.Mode == store.ModeGenerate {
		out.Score = &wire.ScoreBand{Min: g.Request.MinScore, Max: g.Request.MaxScore}
	}
	if g.Note != nil {
		out.Note = *g.Note
	}
	if out.Rejected == nil {
		out.Rejected = map[string]int{}
	}
	return out
}
