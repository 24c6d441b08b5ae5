package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/puzzled/puzzled/solver"
)

func runReplay(ctx context.Context, e *env, args []string) int {
	fs := e.flagSet("replay", "[--step K] (--job ID | FILE)",
		"Prints the canonical state text (docs/states.md) of a level after each move of a plan, from the kind's simulator.\n"+
			"--job ID replays the stored plan of a job on the server; FILE (one level) is solved locally first.\n"+
			"Without --step every state is printed, separated by blank lines; --json prints the states as JSON lines.")
	job := fs.Int64("job", 0, "replay the stored plan of this job on the server")
	step := fs.Int("step", -1, "print only the state after K moves (0: the level as given)")
	var budget solver.Budget
	fs.Int64Var(&budget.MaxMS, "budget-ms", 0, "time budget of the local solve in ms (0: none)")
	pos, code, ok := parseArgs(fs, args)
	if !ok {
		return code
	}
	var states []solver.State
	var err error
	switch {
	case *job > 0 && len(pos) == 0:
		states, err = serverStates(ctx, e, *job)
	case *job == 0 && len(pos) == 1:
		states, err = localStates(ctx, e, pos[0], budget)
	default:
		fs.Usage()
		return exitError
	}
	if err != nil {
		return e.errorf("replay: %v", err)
	}
	if *step >= len(states) {
		return e.errorf("replay: --step %d: the plan has %d moves", *step, len(states)-1)
	}
	if *step >= 0 {
		states = states[*step : *step+1]
	}
	if err := printStates(e.stdout, states, e.jsonOK && e.json); err != nil {
		return e.errorf("replay: %v", err)
	}
	return exitOK
}

// serverStates asks the server for the states of a job's stored plan.
func serverStates(ctx context.Context, e *env, id int64) ([]solver.State, error) {
	r, err := e.client().GetReplay(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("job %d: %w", id, err)
	}
	return r.States, nil
}

// localStates solves the one level of path and lists the states of its
// plan (for an unknown result, of the best partial line).
func localStates(ctx context.Context, e *env, path string, budget solver.Budget) ([]solver.State, error) {
	levels, err := collectLevels([]string{path}, e.stdin)
	if err != nil {
		return nil, err
	}
	if len(levels) != 1 {
		return nil, fmt.Errorf("%s holds %d levels; replay takes one", path, len(levels))
	}
	if levels[0].err != nil {
		return nil, fmt.Errorf("%s: %w", levels[0].where(), levels[0].err)
	}
	reg := e.registry
	lvl, err := reg.Parse(levels[0].data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", levels[0].where(), err)
	}
	k := reg.KindOf(lvl)
	res, err := k.Solve(ctx, lvl, solver.Options{Budget: budget})
	if err != nil {
		return nil, fmt.Errorf("solve: %w", err)
	}
	if err := k.Verify(lvl, res); err != nil {
		return nil, fmt.Errorf("solver bug: %w", err)
	}
	fmt.Fprintf(e.stderr, "%s: %s, %d-move plan\n", levels[0].where(), res.Verdict, planLen(res.Plan))
	st, ok := k.(solver.Stepper)
	if !ok {
		return nil, fmt.Errorf("kind %q cannot list states", k.Name())
	}
	return st.States(lvl, res.Plan)
}

// planLen counts the moves of a plan: an array's entries or a string's
// letters.
func planLen(plan json.RawMessage) int {
	var moves []json.RawMessage
	if json.Unmarshal(plan, &moves) == nil {
		return len(moves)
	}
	var line string
	if json.Unmarshal(plan, &line) == nil {
		return len(line)
	}
	return 0
}

// printStates writes the canonical texts separated by blank lines, or one
// JSON line per state.
func printStates(w io.Writer, states []solver.State, asJSON bool) error {
	for i, st := range states {
		var err error
		switch {
		case asJSON:
			err = writeJSONLine(w, st)
		case i > 0:
			_, err = fmt.Fprintf(w, "\n%s\n", st.Text)
		default:
			_, err = fmt.Fprintln(w, st.Text)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
