package main

import (
	"context"
	"fmt"
	"time"

	"github.com/puzzled/puzzled/api/wire"
)

func runStatus(ctx context.Context, e *env, args []string) int {
	fs := e.flagSet("status", "[--job] ID", "Shows a batch's progress: counts by state, verdict and kind.")
	job := fs.Bool("job", false, "ID is a job id, not a batch id")
	id, code, ok := parseIDArgs(e, fs, args)
	if !ok {
		return code
	}
	c := e.client()
	if *job {
		j, err := c.GetJob(ctx, id)
		if err != nil {
			return e.errorf("status: job %d: %v", id, err)
		}
		if err := printJob(e, j); err != nil {
			return e.errorf("status: %v", err)
		}
		return exitOK
	}
	b, err := c.GetBatch(ctx, id)
	if err != nil {
		return e.errorf("status: batch %d: %v", id, err)
	}
	if err := printSummary(e, b, 0); err != nil {
		return e.errorf("status: %v", err)
	}
	return exitOK
}

// printJob prints a job's state and result summary.
func printJob(e *env, j wire.Job) error {
	if e.machine() {
		return writeJSONLine(e.stdout, j)
	}
	t := newTable(e.stdout)
	t.row("job", fmt.Sprint(j.ID))
	if j.BatchID != nil {
		t.row("batch", fmt.Sprint(*j.BatchID))
	}
	t.row("level", j.LevelHash)
	t.row("kind", j.Kind)
	t.row("state", string(j.State))
	t.row("priority", string(j.Priority))
	t.row("attempts", fmt.Sprintf("%d/%d", j.Attempts, j.MaxAttempts))
	t.row("cached", fmt.Sprint(j.Cached))
	t.row("created", j.CreatedAt.Format(time.RFC3339))
	if j.StartedAt != nil && j.FinishedAt != nil {
		t.row("ran", j.FinishedAt.Sub(*j.StartedAt).Round(time.Millisecond).String())
	}
	if j.Progress != nil {
		t.row("nodes so far", fmt.Sprint(j.Progress.Nodes))
	}
	if j.Result != nil {
		resultRows(t, &j.Result.Result)
	}
	if j.Error != nil {
		t.row("error", *j.Error)
	}
	return t.flush()
}
