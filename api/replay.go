package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/puzzled/puzzled/api/wire"
	"github.com/puzzled/puzzled/solver"
)

func (s *Server) replayJob(w http.ResponseWriter, r *http.Request) {
	job, ok := s.jobFromPath(w, r)
	if !ok {
		return
	}
	if job.Result == nil {
		writeError(w, http.StatusConflict, fmt.Sprintf("job %d is %s and has no result yet", job.ID, job.State), "")
		return
	}
	lr, err := s.cfg.Store.GetLevel(r.Context(), job.LevelHash, nil) // its body only
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	states, err := s.states(lr.Body, job.Result.Plan)
	switch {
	case errors.Is(err, solver.ErrTooManyStates):
		writeError(w, http.StatusRequestEntityTooLarge, err.Error(), "")
		return
	case err != nil:
		// A stored plan always passed Verify: this is a bug, not bad input.
		s.cfg.Logger.Error("replay of a stored plan failed", slog.Int64("job_id", job.ID), slog.Any("error", err))
		writeError(w, http.StatusInternalServerError, "replay failed: "+err.Error(), "")
		return
	}
	res := job.Result
	writeJSON(w, http.StatusOK, wire.Replay{JobID: job.ID, Kind: job.Kind, LevelHash: job.LevelHash,
		Verdict: res.Verdict, Value: res.Value, Optimal: res.Optimal, Proof: res.Proof,
		Level: lr.Body, States: states, Explanation: s.explain(lr.Body, res.Result, job.Budget)})
}

// explain asks the level's kind why a result is not solved; nil for a
// solved result. budget is the job's, its kind's default filled in.
func (s *Server) explain(level json.RawMessage, res solver.Result, budget solver.Budget) *solver.Explanation {
	if res.Verdict == solver.Solved {
		return nil
	}
	lvl, err := s.cfg.Registry.Parse(level)
	if err != nil {
		return nil
	}
	if budget.MaxMS == 0 && budget.MaxNodes == 0 {
		budget = s.cfg.Registry.DefaultBudget(lvl.Kind())
	}
	if ex, ok := s.cfg.Registry.KindOf(lvl).(solver.Explainer); ok {
		e := ex.Explain(lvl, res, budget)
		return &e
	}
	e := solver.Explanation{Summary: fmt.Sprintf("Not decided within the budget (%s).", solver.BudgetText(budget, res.Stats))}
	if res.Verdict == solver.Unsolvable {
		e.Summary = "Proven unsolvable (" + res.Proof + ")."
	}
	return &e
}

// states parses a stored level and lists the states of plan.
func (s *Server) states(level, plan json.RawMessage) ([]solver.State, error) {
	lvl, err := s.cfg.Registry.Parse(level)
	if err != nil {
		return nil, fmt.Errorf("stored level: %w", err)
	}
	st, ok := s.cfg.Registry.KindOf(lvl).(solver.Stepper)
	if !ok {
		return nil, fmt.Errorf("kind %q cannot list states", lvl.Kind())
	}
	return st.States(lvl, plan)
}
