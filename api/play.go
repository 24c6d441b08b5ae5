package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/puzzled/puzzled/api/wire"
	"github.com/puzzled/puzzled/solver"
)

// The step endpoint's solves run in the API process, at most playSolves
// at once (others wait their turn), each within its budget: 2 s unless the
// request asks for up to 10 s.
const (
	playSolves    = 2
	defaultPlayMS = 2_000
	maxPlayMS     = 10_000
)

// play is POST /v1/play: a level and the moves played so far. The kind's
// simulator says where they lead and which moves are legal there
// (solver.Positioner, solver.Stepper); the kind's solver, run on that
// position as a level of its own, says whether it can still be won. The
// page that calls it implements no rule of any kind.
func (s *Server) play(w http.ResponseWriter, r *http.Request) {
	if !acceptContentType(w, r, mediaJSON) {
		return
	}
	body, ok := s.readBody(w, r, s.cfg.Limits.JobBody)
	if !ok {
		return
	}
	var req wire.PlayRequest
	if err := solver.DecodeStrict(body, &req); err != nil {
		writeLevelError(w, err)
		return
	}
	switch {
	case len(req.Level) == 0:
		writeError(w, http.StatusBadRequest, "level: missing", "level")
		return
	case req.Budget.MaxMS < 0 || req.Budget.MaxMS > maxPlayMS:
		writeError(w, http.StatusBadRequest, fmt.Sprintf("budget.max_ms: must be between 0 and %d", maxPlayMS), "budget.max_ms")
		return
	case req.Budget.MaxNodes < 0:
		writeError(w, http.StatusBadRequest, "budget.max_nodes: must not be negative", "budget.max_nodes")
		return
	}
	if req.Budget.MaxMS == 0 {
		req.Budget.MaxMS = defaultPlayMS
	}
	lvl, err := s.cfg.Registry.Parse(req.Level)
	if err != nil {
		writeLevelError(w, prefixField("level", err))
		return
	}
	kind := s.cfg.Registry.KindOf(lvl)
	pos, okPos := kind.(solver.Positioner)
	step, okStep := kind.(solver.Stepper)
	if !okPos || !okStep {
		writeError(w, http.StatusBadRequest, "kind "+lvl.Kind()+" cannot be played here", "level.kind")
		return
	}
	p, err := pos.Position(lvl, req.Moves)
	if err != nil {
		writeError(w, http.StatusBadRequest, "moves: "+err.Error(), "moves")
		return
	}
	states, err := step.States(lvl, req.Moves)
	switch {
	case errors.Is(err, solver.ErrTooManyStates):
		writeError(w, http.StatusRequestEntityTooLarge, err.Error(), "level")
		return
	case err != nil:
		writeError(w, http.StatusBadRequest, "moves: "+err.Error(), "moves")
		return
	}
	out := wire.Play{Kind: lvl.Kind(), State: states[len(states)-1], Moves: p.Moves, Over: p.Over, Won: p.Won, Lost: p.Lost, Goal: p.Goal}
	if req.History {
		out.History = states
	}
	if out.Moves == nil {
		out.Moves = []json.RawMessage{}
	}
	if p.Over {
		if p.Goal {
			out.Winnable = &p.Won
		}
		if p.Scored {
			out.Value = &p.Value
		}
		writeJSON(w, http.StatusOK, out)
		return
	}
	if !s.solvePosition(w, r, kind, p, req.Budget, &out) {
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// solvePosition solves p.Level within budget, checks the result with the
// kind's simulator and fills out; on failure it has answered.
func (s *Server) solvePosition(w http.ResponseWriter, r *http.Request, kind solver.Kind, p solver.Position, budget solver.Budget, out *wire.Play) bool {
	select {
	case s.playSlots <- struct{}{}:
	case <-r.Context().Done():
		return false // the client went away while waiting
	}
	defer func() { <-s.playSlots }()
	ctx, cancel := context.WithTimeout(r.Context(), time.Duration(budget.MaxMS)*time.Millisecond+time.Second)
	defer cancel()
	res, err := kind.Solve(ctx, p.Level, solver.Options{Budget: budget})
	if r.Context().Err() != nil {
		return false
	}
	stopped := errors.Is(err, context.DeadlineExceeded) // a search that overran its budget: unknown
	if stopped {
		res.Verdict, err = solver.Unknown, nil
	}
	if err == nil {
		err = kind.Verify(p.Level, res)
	}
	if err != nil {
		s.cfg.Logger.Error("solve of a played position failed", slog.String("kind", kind.Name()), slog.Any("error", err))
		writeError(w, http.StatusInternalServerError, "solve failed: "+err.Error(), "")
		return false
	}
	out.Verdict, out.Proof, out.Nodes, out.ElapsedMS = res.Verdict, res.Proof, res.Stats.Nodes, res.Stats.ElapsedMS
	out.Optimal = res.Optimal
	if out.Line, err = solver.DropMoves(res.Plan, p.Skip); err != nil {
		out.Line = nil
	}
	if p.Goal && res.Verdict.Definitive() {
		v := res.Verdict == solver.Solved
		out.Winnable = &v
	}
	if p.Scored && res.Value != nil {
		v := p.Value + p.Sign**res.Value
		out.Value = &v
	}
	return true
}
