package main

import (
	"context"
	"fmt"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/puzzled/puzzled/api/client"
	"github.com/puzzled/puzzled/api/wire"
	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/solver"
)

// Long-polls of GET /v1/jobs/{id}?wait=: a spinner is refreshed after each
// second of waiting; without one a request waits up to 30 s.
const (
	jobWaitSpinner = time.Second
	jobWaitQuiet   = 30 * time.Second
)

func runJob(ctx context.Context, e *env, args []string) int {
	fs := e.flagSet("job", "[flags] FILE",
		"Submits one level as an interactive job, waits for it and prints the solution, after\n"+
			"replaying its plan locally. Ctrl-C cancels the job. Exit 2 if the job failed or was canceled,\n"+
			"or its verdict is named by --fail-on.")
	opts := jobtype.Options{}
	fs.StringVar((*string)(&opts.Priority), "priority", "interactive", "interactive or bulk")
	fs.Int64Var(&opts.Budget.MaxMS, "budget-ms", 0, "time budget in ms (0: server default)")
	fs.Int64Var(&opts.Budget.MaxNodes, "max-nodes", 0, "node budget (0: none)")
	fs.StringVar(&opts.Project, "project", "", "project of the job (default: the token's only project, else 'default')")
	playouts := playoutsFlag(fs)
	fail := failOn{}
	fs.Var(fail, "fail-on", "exit 2 if the verdict is unsolvable or unknown (repeatable)")
	pos, code, ok := parseArgs(fs, args)
	if !ok {
		return code
	}
	if !wantArgs(fs, pos, 1, 1) {
		return exitError
	}
	opts.Difficulty = playouts()
	if err := checkOptions(opts, jobtype.Alone); err != nil {
		return e.errorf("job: %v", err)
	}
	levels, err := collectLevels(pos, e.stdin)
	if err != nil {
		return e.errorf("job: %v", err)
	}
	if len(levels) != 1 {
		return e.errorf("job: %s holds %d levels; job takes one (use submit for more)", pos[0], len(levels))
	}
	reg := e.registry
	lvl, err := parseLevel(reg, levels[0])
	if err != nil {
		return e.errorf("job: %s: %s", levels[0].where(), describe(err))
	}
	c := e.client()
	j, err := c.CreateJob(ctx, levels[0].data, opts)
	if err != nil {
		return e.errorf("job: %v", err)
	}
	fmt.Fprintf(e.stderr, "job %d: %s level %.12s\n", j.ID, j.Kind, j.LevelHash)
	if j, err = pollJob(ctx, e, c, j); err != nil {
		if ctx.Err() != nil {
			return cancelJob(e, c, j.ID)
		}
		return e.errorf("job %d: %v", j.ID, err)
	}
	return finishJob(ctx, e, c, j, reg.KindOf(lvl), lvl, fail)
}

// pollJob long-polls until the job is final, with a spinner on a terminal
// (which the answer after each wait updates).
func pollJob(ctx context.Context, e *env, c *client.Client, j wire.Job) (wire.Job, error) {
	var spin *progressbar.ProgressBar
	if isTerminal(e.stderr) {
		spin = progressbar.NewOptions(-1, progressbar.OptionSetWriter(e.stderr),
			progressbar.OptionSpinnerType(14), progressbar.OptionSetElapsedTime(true))
		defer func() { _ = spin.Exit(); fmt.Fprintln(e.stderr) }()
	}
	wait := jobWaitQuiet
	if spin != nil {
		wait = jobWaitSpinner
	}
	for !j.State.Final() {
		start := time.Now()
		next, err := c.WaitJob(ctx, j.ID, wait)
		if err != nil {
			if ctx.Err() != nil || isPermanent(err) {
				return j, err
			}
			// A transient error: try again, a second later.
			select {
			case <-ctx.Done():
				return j, ctx.Err()
			case <-time.After(time.Second - time.Since(start)):
			}
			continue
		}
		j = next
		if !j.State.Final() {
			// An older server ignores wait and answers at once: pace it.
			select {
			case <-ctx.Done():
				return j, ctx.Err()
			case <-time.After(time.Second - time.Since(start)):
			}
		}
		if spin != nil {
			desc := string(j.State)
			if j.Progress != nil {
				desc += fmt.Sprintf(", %d nodes", j.Progress.Nodes)
			}
			spin.Describe(desc)
			_ = spin.Add(1)
		}
	}
	return j, nil
}

// cancelJob cancels a job after Ctrl-C.
func cancelJob(e *env, c *client.Client, id int64) int {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	state, err := c.CancelJob(ctx, id)
	if err != nil {
		fmt.Fprintf(e.stderr, "puzzlectl: job %d: interrupted; cancel failed: %v\n", id, err)
	} else {
		fmt.Fprintf(e.stderr, "puzzlectl: job %d: interrupted; job is %s\n", id, state)
	}
	return exitInterrupted
}

// finishJob fetches, verifies and prints the solution of a final job.
func finishJob(ctx context.Context, e *env, c *client.Client, j wire.Job, kind solver.Kind, lvl solver.Level, fail failOn) int {
	if j.State != jobtype.Done {
		msg := string(j.State)
		if j.Error != nil {
			msg += ": " + *j.Error
		}
		fmt.Fprintf(e.stderr, "puzzlectl: job %d %s\n", j.ID, msg)
		return exitBatchFailed
	}
	sol, err := c.GetSolution(ctx, j.ID)
	if err != nil {
		return e.errorf("job %d: solution: %v", j.ID, err)
	}
	if err := kind.Verify(lvl, sol.Result.Result); err != nil {
		return e.errorf("job %d: the server's result does not replay: %v", j.ID, err)
	}
	if err := printSolution(e, sol); err != nil {
		return e.errorf("job: %v", err)
	}
	if v := string(sol.Verdict); fail[v] {
		fmt.Fprintf(e.stderr, "puzzlectl: job %d: %s (--fail-on %s)\n", j.ID, v, v)
		return exitBatchFailed
	}
	return exitOK
}

func printSolution(e *env, sol client.Solution) error {
	if e.machine() {
		return writeJSONLine(e.stdout, sol)
	}
	t := newTable(e.stdout)
	t.row("job", fmt.Sprint(sol.JobID))
	t.row("level", sol.LevelHash)
	t.row("kind", sol.Kind)
	t.row("cached", fmt.Sprint(sol.Cached))
	resultRows(t, &sol.Result.Result)
	return t.flush()
}
