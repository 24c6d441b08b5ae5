package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/puzzled/puzzled/api/client"
	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/solver"
)

// maxListed caps how many invalid levels are printed.
const maxListed = 100

func runSubmit(ctx context.Context, e *env, args []string) int {
	fs := e.flagSet("submit", "[flags] PATH|GLOB...",
		"Submits levels as one batch and prints its id. PATH is a level file, an .ndjson file, a folder\n"+
			"(searched recursively) or a glob; - reads stdin. Community sheep files are accepted as they are.\n"+
			"Levels are validated locally first: invalid ones are listed and nothing is sent (exit 1).\n"+
			"With --wait: a progress bar on stderr, a summary at the end, exit 2 if a job failed or a\n"+
			"verdict named by --fail-on occurred.")
	var opts jobtype.Options
	fs.StringVar((*string)(&opts.Priority), "priority", "", "interactive or bulk (server default: bulk)")
	fs.Int64Var(&opts.Budget.MaxMS, "budget-ms", 0, "time budget per level in ms (0: server default)")
	fs.Int64Var(&opts.Budget.MaxNodes, "max-nodes", 0, "node budget per level (0: none)")
	fs.StringVar(&opts.Project, "project", "", "project of the batch (default: the token's only project, else 'default')")
	playouts := playoutsFlag(fs)
	var labels labelFlags
	fs.Var(&labels, "label", "key:value label of the batch, which its jobs carry too (repeatable)")
	fileLabel := fs.Bool("file-label", false, "label each job with its level's file: \"file\" (and \"line\" in an NDJSON file); each label is stored per job, so leave it off for large batches")
	wait := fs.Bool("wait", false, "wait for the batch with a progress bar and print a summary")
	fail := failOn{}
	fs.Var(fail, "fail-on", "with --wait: exit 2 if this verdict occurs: unsolvable, unknown or failed (repeatable)")
	pos, code, ok := parseArgs(fs, args)
	if !ok {
		return code
	}
	if !wantArgs(fs, pos, 1, -1) {
		return exitError
	}
	if len(labels) > 0 {
		m := map[string]string{}
		for _, l := range labels {
			k, v, _ := strings.Cut(l, ":")
			m[k] = v
		}
		opts.Labels, _ = json.Marshal(m)
	}
	opts.Difficulty = playouts()
	if err := checkOptions(opts, jobtype.InBatch); err != nil {
		return e.errorf("submit: %v", err)
	}
	levels, err := collectLevels(pos, e.stdin)
	if err != nil {
		return e.errorf("submit: %v", err)
	}
	if n := validateLevels(e.registry, levels, e.stderr); n > 0 {
		return e.errorf("submit: %d of %d levels are invalid; nothing was sent", n, len(levels))
	}
	raw := make([]json.RawMessage, len(levels))
	for i, l := range levels {
		raw[i] = l.data
		if *fileLabel {
			raw[i] = l.withFileLabel()
		}
	}
	c := e.client()
	id, err := c.CreateBatch(ctx, raw, opts)
	if err != nil {
		reportBatchError(e.stderr, err, levels)
		return e.errorf("submit: %v", err)
	}
	if err := printSubmitted(e, id, len(levels), *wait); err != nil {
		return e.errorf("submit: %v", err)
	}
	if !*wait {
		return exitOK
	}
	return waitBatch(ctx, e, c, id, fail)
}

// withFileLabel returns the batch item of a level read from a file: the
// level with labels of its own, "file" (the path as found) and, for a line
// of an NDJSON file, "line", so that `puzzlectl jobs` and the API's label
// filter tell which file each job came from. A level read from stdin goes
// as it is.
func (l level) withFileLabel() json.RawMessage {
	if l.file == "-" {
		return l.data
	}
	labels := map[string]string{"file": l.file}
	if l.line > 0 {
		labels["line"] = strconv.Itoa(l.line)
	}
	item, _ := json.Marshal(struct {
		Level  json.RawMessage   `json:"level"`
		Labels map[string]string `json:"labels"`
	}{l.data, labels})
	return item
}

// printSubmitted prints the new batch's id. In machine mode with --wait
// only the final summary is printed, so the id goes to stderr.
func printSubmitted(e *env, id int64, total int, wait bool) error {
	switch {
	case e.machine() && wait:
		_, err := fmt.Fprintf(e.stderr, "batch %d submitted: %d levels\n", id, total)
		return err
	case e.machine():
		return writeJSONLine(e.stdout, map[string]any{"id": id, "total": total})
	}
	_, err := fmt.Fprintf(e.stdout, "batch %d submitted: %d levels\n", id, total)
	return err
}

// validateLevels parses every level with the local registry, prints each
// invalid one (up to maxListed) with its file, line, field and reason, and
// returns how many are invalid.
func validateLevels(reg *solver.Registry, levels []level, w io.Writer) int {
	errs := make([]error, len(levels))
	parallelFor(len(levels), func(i int) {
		_, errs[i] = parseLevel(reg, levels[i])
	})
	n := 0
	for i, err := range errs {
		if err == nil {
			continue
		}
		if n++; n <= maxListed {
			fmt.Fprintf(w, "%s: %s\n", levels[i].where(), describe(err))
		}
	}
	if n > maxListed {
		fmt.Fprintf(w, "... and %d more invalid levels\n", n-maxListed)
	}
	return n
}

// describe formats a validation error as "field: reason".
func describe(err error) string {
	var fe *solver.FieldError
	if errors.As(err, &fe) && fe.Field != "" {
		return fe.Field + ": " + fe.Reason
	}
	return err.Error()
}

// reportBatchError lists the levels a server rejected, by file and line.
func reportBatchError(w io.Writer, err error, levels []level) {
	var apiErr *client.Error
	if !errors.As(err, &apiErr) {
		return
	}
	for _, le := range apiErr.Errors {
		where := fmt.Sprintf("level %d", le.Index)
		if le.Index >= 0 && le.Index < len(levels) {
			where = levels[le.Index].where()
		}
		msg := le.Reason
		if le.Field != "" {
			msg = le.Field + ": " + msg
		}
		fmt.Fprintf(w, "%s: %s\n", where, msg)
	}
}
