package main

import (
	"fmt"
	"time"

	"github.com/puzzled/puzzled/api/wire"
)

// batchSummary is the machine form of a batch summary.
type batchSummary struct {
	wire.Batch
	ElapsedMS int64 `json:"elapsed_ms"`
	WaitedMS  int64 `json:"waited_ms,omitempty"`
}

// printSummary prints a finished (or current) batch: states, verdicts,
// kinds and the elapsed time. waited is how long the caller watched; it is
// used when the server has no finish time yet.
func printSummary(e *env, b wire.Batch, waited time.Duration) error {
	elapsed := batchElapsed(b, waited)
	if e.machine() {
		return writeJSONLine(e.stdout, batchSummary{Batch: b, ElapsedMS: elapsed.Milliseconds(), WaitedMS: waited.Milliseconds()})
	}
	t := newTable(e.stdout)
	t.row("batch", fmt.Sprint(b.ID))
	t.row("levels", fmt.Sprint(b.Total))
	t.row("done", fmt.Sprintf("%d/%d (%.1f%%)", finished(b), b.Total, 100*b.Done))
	t.row("cached", fmt.Sprint(b.Cached))
	t.row("priority", string(b.Priority))
	rate := ""
	if s := elapsed.Seconds(); s > 0 && b.FinishedAt != nil {
		rate = fmt.Sprintf(" (%.0f levels/s)", float64(b.Total)/s)
	}
	if waited > 0 {
		rate += fmt.Sprintf(", waited %s", waited.Round(10*time.Millisecond))
	}
	t.row("elapsed", elapsed.Round(10*time.Millisecond).String()+rate)
	section(t, "STATE", b.States)
	section(t, "VERDICT", b.Verdicts)
	section(t, "KIND", b.Kinds)
	return t.flush()
}

// section adds a blank line, a header and one row per count.
func section(t *table, name string, m map[string]int) {
	t.row("")
	t.row(name, "COUNT")
	if len(m) == 0 {
		t.row("-", "0")
	}
	for _, c := range sortedCounts(m) {
		t.row(c.key, fmt.Sprint(c.n))
	}
}

// batchElapsed is the server's time from the batch's creation to its last
// finished job, or waited (else the time since creation) while the batch
// is not finished.
func batchElapsed(b wire.Batch, waited time.Duration) time.Duration {
	if b.FinishedAt != nil {
		return b.FinishedAt.Sub(b.CreatedAt)
	}
	if waited > 0 {
		return waited
	}
	return time.Since(b.CreatedAt)
}
