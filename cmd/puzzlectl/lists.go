package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/puzzled/puzzled/api/client"
	"github.com/puzzled/puzzled/api/wire"
)

// `puzzlectl jobs|batches|levels` print the server's lists with the API's
// filters, following the cursors page after page, as a table, NDJSON or
// CSV.

// labelFlags is the repeatable --label key:value flag.
type labelFlags []string

func (l *labelFlags) String() string { return strings.Join(*l, ",") }

func (l *labelFlags) Set(s string) error {
	if k, _, ok := strings.Cut(s, ":"); !ok || k == "" {
		return fmt.Errorf("want key:value, got %q", s)
	}
	*l = append(*l, s)
	return nil
}

// listFlags are the flags of a list command; only the ones a list takes
// are registered.
type listFlags struct {
	values map[string]*string
	labels labelFlags
	format *string
	max    *int
}

func newListFlags(fs *flag.FlagSet, params ...string) *listFlags {
	help := map[string]string{
		"batch":   "only jobs of this batch",
		"kind":    "zuma, sheep, columns or twoends",
		"state":   "queued, running, done, failed or canceled",
		"verdict": "solved, unsolvable or unknown (levels: of the newest definitive result)",
		"level":   "only jobs of this level hash",
		"since":   "created at or after (RFC 3339 time or YYYY-MM-DD)",
		"until":   "created before (RFC 3339 time or YYYY-MM-DD)",
		"project": "only this project's (default: every project the token reads)",
	}
	f := &listFlags{values: map[string]*string{}}
	for _, p := range append(params, "project") {
		f.values[p] = fs.String(p, "", help[p])
	}
	fs.Var(&f.labels, "label", "key:value; repeat for several (all must match)")
	f.format = fs.String("format", "", "table, ndjson or csv (default: table on a terminal, ndjson otherwise)")
	f.max = fs.Int("max", 0, "stop after this many rows (default: all)")
	return f
}

// filter is the query of the list; page is the API's page size.
func (f *listFlags) filter() client.Filter {
	q := client.Filter{}
	for name, v := range f.values {
		if *v != "" {
			q.Set(name, *v)
		}
	}
	for _, l := range f.labels {
		q.Add("label", l)
	}
	page := wire.MaxListLimit
	if *f.max > 0 && *f.max < page {
		page = *f.max
	}
	q.Set("limit", strconv.Itoa(page))
	return q
}

// rowWriter writes the rows of a list in one format.
type rowWriter struct {
	format string
	json   *jsonLines
	csv    *csv.Writer
	table  *table
}

func newRowWriter(e *env, format string, w io.Writer, header []string) (*rowWriter, error) {
	if format == "" {
		format = "table"
		if e.machine() {
			format = "ndjson"
		}
	}
	r := &rowWriter{format: format}
	switch format {
	case "ndjson":
		r.json = newJSONLines(w)
	case "csv":
		r.csv = csv.NewWriter(w)
		if err := r.csv.Write(header); err != nil {
			return nil, fmt.Errorf("writing output: %w", err)
		}
	case "table":
		r.table = newTable(w, upper(header)...)
	default:
		return nil, fmt.Errorf("unknown format %q: want table, ndjson or csv", format)
	}
	return r, nil
}

func upper(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strings.ToUpper(s)
	}
	return out
}

// write writes an item: as JSON in NDJSON, else its cells.
func (r *rowWriter) write(item any, cells []string) error {
	switch r.format {
	case "ndjson":
		return r.json.write(item)
	case "csv":
		if err := r.csv.Write(cells); err != nil {
			return fmt.Errorf("writing output: %w", err)
		}
	default:
		r.table.row(cells...)
	}
	return nil
}

func (r *rowWriter) flush() error {
	switch r.format {
	case "ndjson":
		return r.json.flush()
	case "csv":
		r.csv.Flush()
		if err := r.csv.Error(); err != nil {
			return fmt.Errorf("writing output: %w", err)
		}
		return nil
	}
	return r.table.flush()
}

// errEnough stops a list at --max rows.
var errEnough = errors.New("enough rows")

// runList parses a list command's flags and streams its rows through
// list, which calls emit for each item.
func runList(ctx context.Context, e *env, args []string, name, brief string, params, header []string,
	list func(c *client.Client, q client.Filter, emit func(item any, cells []string) error) error) int {
	fs := e.flagSet(name, "[flags]", brief)
	f := newListFlags(fs, params...)
	pos, code, ok := parseArgs(fs, args)
	if !ok {
		return code
	}
	if !wantArgs(fs, pos, 0, 0) {
		return exitError
	}
	w, err := newRowWriter(e, *f.format, e.stdout, header)
	if err != nil {
		return e.errorf("%s: %v", name, err)
	}
	n := 0
	err = list(e.client(), f.filter(), func(item any, cells []string) error {
		if *f.max > 0 && n >= *f.max {
			return errEnough
		}
		n++
		return w.write(item, cells)
	})
	if ferr := w.flush(); err == nil || errors.Is(err, errEnough) {
		err = ferr
	}
	if err != nil {
		return e.errorf("%s: %v", name, err)
	}
	return exitOK
}

func timeCell(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

func strCell(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func labelsCell(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	return string(raw)
}

// fileCell is the file a job's level came from, from the labels puzzlectl
// submit gives each job ("file", and "line" for an NDJSON file); empty for
// other jobs.
func fileCell(raw json.RawMessage) string {
	var l struct {
		File string `json:"file"`
		Line string `json:"line"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &l) != nil || l.File == "" {
		return ""
	}
	if l.Line != "" {
		return l.File + ":" + l.Line
	}
	return l.File
}

func runJobs(ctx context.Context, e *env, args []string) int {
	return runList(ctx, e, args, "jobs", "Lists jobs, newest first, with the API's filters (all filters AND).",
		[]string{"batch", "kind", "state", "verdict", "level", "since", "until"},
		[]string{"id", "batch", "seq", "file", "kind", "state", "verdict", "value", "cached", "level_hash", "labels", "created_at", "error"},
		func(c *client.Client, q client.Filter, emit func(any, []string) error) error {
			return c.ListJobs(ctx, q, func(j wire.JobListItem) error {
				var batch, seq string
				if j.BatchID != nil {
					batch, seq = strconv.FormatInt(*j.BatchID, 10), strconv.Itoa(int(*j.Seq))
				}
				return emit(j, []string{strconv.FormatInt(j.ID, 10), batch, seq, fileCell(j.Labels), j.Kind, string(j.State), strCell(j.Verdict),
					int64Cell(j.Value), strconv.FormatBool(j.Cached), j.LevelHash, labelsCell(j.Labels),
					timeCell(&j.CreatedAt), strCell(j.Error)})
			})
		})
}

func runBatches(ctx context.Context, e *env, args []string) int {
	return runList(ctx, e, args, "batches", "Lists batches, newest first, by labels and creation time.",
		[]string{"since", "until"},
		[]string{"id", "total", "priority", "labels", "created_at", "canceled_at"},
		func(c *client.Client, q client.Filter, emit func(any, []string) error) error {
			return c.ListBatches(ctx, q, func(b wire.BatchListItem) error {
				return emit(b, []string{strconv.FormatInt(b.ID, 10), strconv.Itoa(b.Total), string(b.Priority),
					labelsCell(b.Labels), timeCell(&b.CreatedAt), timeCell(b.CanceledAt)})
			})
		})
}

func runLevels(ctx context.Context, e *env, args []string) int {
	return runList(ctx, e, args, "levels", "Lists distinct stored levels, newest first, with their newest definitive result.",
		[]string{"kind", "verdict"},
		[]string{"hash", "kind", "verdict", "value", "solver_version", "job_id", "created_at"},
		func(c *client.Client, q client.Filter, emit func(any, []string) error) error {
			return c.ListLevels(ctx, q, func(l wire.LevelListItem) error {
				var job string
				if l.JobID != nil {
					job = strconv.FormatInt(*l.JobID, 10)
				}
				return emit(l, []string{l.Hash, l.Kind, strCell(l.Verdict), int64Cell(l.Value), strCell(l.SolverVersion),
					job, timeCell(&l.CreatedAt)})
			})
		})
}
