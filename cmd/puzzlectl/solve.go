package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/difficulty"
)

// solveLine is one line of `puzzlectl solve` output: a verified result or
// the reason the level could not be solved.
type solveLine struct {
	File string `json:"file"`
	Line int    `json:"line,omitempty"`
	Kind string `json:"kind,omitempty"`
	*solver.Result
	Error string `json:"error,omitempty"`
	Field string `json:"field,omitempty"`
}

func runSolve(ctx context.Context, e *env, args []string) int {
	fs := e.flagSet("solve", "[flags] FILE|DIR|-...",
		"Solves levels locally (no server) in parallel and prints one result per level in input order.\n"+
			"FILE is a .json level or an .ndjson file; DIR means its level files; - reads stdin.\n"+
			"Exit status 1 if any level is invalid or could not be solved.")
	var budget solver.Budget
	fs.Int64Var(&budget.MaxMS, "budget-ms", 0, "time budget per level in ms (0: none)")
	fs.Int64Var(&budget.MaxNodes, "max-nodes", 0, "node budget per level (0: none)")
	playouts := fs.Int("playouts", 0, fmt.Sprintf("difficulty figures of each solved or unsolvable level: playouts per player "+
		"(0: no figures, at most %d)", difficulty.MaxPlayouts))
	pos, code, ok := parseArgs(fs, args)
	if !ok {
		return code
	}
	if !wantArgs(fs, pos, 1, -1) {
		return exitError
	}
	if *playouts < 0 || *playouts > difficulty.MaxPlayouts {
		return e.errorf("solve: --playouts must be between 0 and %d", difficulty.MaxPlayouts)
	}
	levels, err := collectLevels(pos, e.stdin)
	if err != nil {
		return e.errorf("solve: %v", err)
	}
	out := newSolveWriter(e)
	bad := false
	emit := func(l solveLine) error {
		bad = bad || l.Error != ""
		return out.write(l)
	}
	err = solveAll(ctx, e.registry, levels, solveOpts{Options: solver.Options{Budget: budget}, playouts: *playouts}, emit, out.idle)
	if ferr := out.flush(); err == nil {
		err = ferr
	}
	switch {
	case ctx.Err() != nil:
		fmt.Fprintln(e.stderr, "puzzlectl: solve: interrupted")
		return exitInterrupted
	case err != nil:
		return e.errorf("solve: %v", err)
	case bad:
		return exitError
	}
	return exitOK
}

// solveAll solves the levels on GOMAXPROCS goroutines and calls emit for
// each in input order. It calls idle before it waits for a result, so that
// the output so far can be flushed.
func solveAll(ctx context.Context, reg *solver.Registry, levels []level, opts solveOpts, emit func(solveLine) error, idle func() error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	lines := make([]solveLine, len(levels))
	done := make([]chan struct{}, len(levels))
	for i := range done {
		done[i] = make(chan struct{})
	}
	next := make(chan int)
	// Fewer levels than cores: each gets its share of them (a sheep level
	// runs a second search beside its own, solver.Options.Threads).
	opts.Threads = max(1, runtime.GOMAXPROCS(0)/max(len(levels), 1))
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				lines[i] = solveOne(ctx, reg, levels[i], opts)
				close(done[i])
			}
		})
	}
	go func() {
		defer close(next)
		for i := range levels {
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	defer wg.Wait()
	for i := range levels {
		select {
		case <-done[i]:
		default:
			if err := idle(); err != nil {
				return err
			}
			select {
			case <-done[i]:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err := emit(lines[i]); err != nil {
			return err
		}
	}
	return nil
}

// solveOpts are the solver's options and the playouts per player of the
// difficulty figures (0: none).
type solveOpts struct {
	solver.Options
	playouts int
}

// solveOne parses, solves and verifies one level, and rates it when asked.
func solveOne(ctx context.Context, reg *solver.Registry, l level, opts solveOpts) solveLine {
	out := solveLine{File: l.file, Line: l.line}
	lvl, err := parseLevel(reg, l)
	if err != nil {
		out.Error, out.Field = fieldOf(err)
		return out
	}
	out.Kind = lvl.Kind()
	kind := reg.KindOf(lvl)
	res, err := kind.Solve(ctx, lvl, opts.Options)
	if err != nil {
		out.Error = "solve: " + err.Error()
		return out
	}
	if err := kind.Verify(lvl, res); err != nil {
		out.Error = "result failed verification (solver bug): " + err.Error()
		return out
	}
	if r, ok := kind.(difficulty.Rater); ok && opts.playouts > 0 && res.Verdict.Definitive() {
		// One goroutine: solveAll already runs a level per core. A level
		// that is not rated (difficulty.ErrNotRated) simply has no figures.
		if f, err := r.Rate(ctx, lvl, res, difficulty.Options{Playouts: opts.playouts, Workers: 1}); err == nil {
			res.Difficulty, _ = json.Marshal(f)
		}
	}
	out.Result = &res
	return out
}

// parseLevel validates a level read from the inputs, as the server does
// (jobtype.Spec.ParseLevel).
func parseLevel(reg *solver.Registry, l level) (solver.Level, error) {
	if l.err != nil {
		return nil, l.err
	}
	return jobtype.Spec{Level: l.data}.ParseLevel(reg)
}

// checkOptions validates the options of a job or batch before anything is
// sent, as the server does (jobtype.Options.Normalize). The options are
// sent as they are: the server applies the defaults.
func checkOptions(opts jobtype.Options, f jobtype.Form) error {
	if err := opts.Normalize(f); err != nil {
		return errors.New(describe(err))
	}
	return nil
}

// fieldOf splits a validation error into its reason and field.
func fieldOf(err error) (reason, field string) {
	var fe *solver.FieldError
	if errors.As(err, &fe) {
		return fe.Reason, fe.Field
	}
	return err.Error(), ""
}

// solveWriter prints solve results as NDJSON or, on a terminal, a table.
type solveWriter struct {
	json  *jsonLines
	table *table
}

func newSolveWriter(e *env) *solveWriter {
	if e.machine() {
		return &solveWriter{json: newJSONLines(e.stdout)}
	}
	t := newTable(e.stdout, "LEVEL", "KIND", "VERDICT", "VALUE", "OPTIMAL", "PROOF", "NODES", "MS", "ERROR")
	return &solveWriter{table: t}
}

func (w *solveWriter) write(l solveLine) error {
	if w.json != nil {
		return w.json.write(l)
	}
	where := level{file: l.File, line: l.Line}.where()
	if l.Result == nil {
		msg := l.Error
		if l.Field != "" {
			msg = l.Field + ": " + msg
		}
		w.table.row(where, l.Kind, "-", "", "", "", "", "", msg)
		return nil
	}
	r := l.Result
	w.table.row(where, l.Kind, string(r.Verdict), int64Cell(r.Value), fmt.Sprint(r.Optimal), r.Proof,
		fmt.Sprint(r.Stats.Nodes), fmt.Sprint(r.Stats.ElapsedMS), "")
	return nil
}

// idle flushes NDJSON while the next result is computed; a table is
// flushed only at the end, to keep its columns aligned.
func (w *solveWriter) idle() error {
	if w.json != nil {
		return w.json.flush()
	}
	return nil
}

func (w *solveWriter) flush() error {
	if w.json != nil {
		return w.json.flush()
	}
	return w.table.flush()
}
