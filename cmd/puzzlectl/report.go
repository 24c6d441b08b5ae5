package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/puzzled/puzzled/api/wire"
)

func runReport(ctx context.Context, e *env, args []string) int {
	fs := e.flagSet("report", "ID", "Shows a batch's report: verdicts by kind, unsolvable levels with proofs, unknown ones, failures, timing percentiles, the slowest levels.")
	id, code, ok := parseIDArgs(e, fs, args)
	if !ok {
		return code
	}
	rep, err := e.client().GetReport(ctx, id)
	if err != nil {
		return e.errorf("report: batch %d: %v", id, err)
	}
	if e.machine() {
		err = writeJSONLine(e.stdout, rep)
	} else {
		err = writeReport(e, rep)
	}
	if err != nil {
		return e.errorf("report: %v", err)
	}
	return exitOK
}

func writeReport(e *env, rep wire.Report) error {
	t := newTable(e.stdout)
	t.row("batch", fmt.Sprint(rep.BatchID))
	t.row("jobs", fmt.Sprintf("%d (%d cached)", rep.Jobs, rep.Cached))
	t.row("solve ms", fmt.Sprintf("p50 %.0f  p95 %.0f  p99 %.0f", rep.SolveMS.P50, rep.SolveMS.P95, rep.SolveMS.P99))
	t.row("nodes", fmt.Sprintf("p50 %.0f  p95 %.0f", rep.Nodes.P50, rep.Nodes.P95))
	if err := t.flush(); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout)
	t = newTable(e.stdout)
	t.row("KIND", "JOBS", "SOLVED", "UNSOLVABLE", "UNKNOWN", "FAILED", "P50 MS", "P95 MS")
	for _, k := range slices.Sorted(maps.Keys(rep.Kinds)) {
		f := rep.Kinds[k]
		t.row(k, fmt.Sprint(f.Jobs), fmt.Sprint(f.Verdicts["solved"]), fmt.Sprint(f.Verdicts["unsolvable"]),
			fmt.Sprint(f.Verdicts["unknown"]), fmt.Sprint(f.States["failed"]),
			fmt.Sprintf("%.0f", f.SolveMS.P50), fmt.Sprintf("%.0f", f.SolveMS.P95))
	}
	if err := t.flush(); err != nil {
		return err
	}
	for _, l := range []struct {
		title  string
		levels []wire.ReportLevel
		cell   func(wire.ReportLevel) string
	}{
		{"UNSOLVABLE", rep.Unsolvable, func(l wire.ReportLevel) string { return l.Proof }},
		{"UNKNOWN (best partial value)", rep.Unknown, func(l wire.ReportLevel) string { return int64Cell(l.Value) }},
		{"FAILED", rep.Failed, func(l wire.ReportLevel) string { return l.Error }},
		{"SLOWEST (ms)", rep.Slowest, func(l wire.ReportLevel) string { return fmt.Sprintf("%.0f", l.ElapsedMS) }},
		{"HARDEST (difficulty score)", rep.Difficulty.Hardest, func(l wire.ReportLevel) string { return int64Cell(intPtr64(l.Score)) }},
	} {
		if len(l.levels) == 0 {
			continue
		}
		fmt.Fprintf(e.stdout, "\n%s\n", l.title)
		t = newTable(e.stdout)
		t.row("SEQ", "KIND", "LEVEL", "")
		for _, lv := range l.levels {
			seq := ""
			if lv.Seq != nil {
				seq = fmt.Sprint(*lv.Seq)
			}
			t.row(seq, lv.Kind, lv.LevelHash[:12], l.cell(lv))
		}
		if err := t.flush(); err != nil {
			return err
		}
	}
	if err := writeScoreHistogram(e, rep.Difficulty); err != nil {
		return err
	}
	if rep.Truncated {
		fmt.Fprintf(e.stdout, "\nlists cut at %d levels; --json for machine use\n", rep.ListLimit)
	}
	return nil
}

// writeScoreHistogram prints one bar per difficulty score, if any level
// was rated.
func writeScoreHistogram(e *env, d wire.Difficulty) error {
	if d.Rated == 0 {
		return nil
	}
	fmt.Fprintf(e.stdout, "\nDIFFICULTY (%d rated levels, 1 trivial .. 10 brutal)\n", d.Rated)
	t := newTable(e.stdout)
	peak := slices.Max(d.Histogram[:])
	for i, n := range d.Histogram {
		bar := strings.Repeat("#", (n*40+peak-1)/peak)
		t.row(fmt.Sprint(i+1), fmt.Sprint(n), bar)
	}
	return t.flush()
}

func intPtr64(p *int) *int64 {
	if p == nil {
		return nil
	}
	v := int64(*p)
	return &v
}
