package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/puzzled/puzzled/solver"
)

// maxLevelCell caps how much of a level or plan a table shows.
const maxLevelCell = 400

func runGet(ctx context.Context, e *env, args []string) int {
	fs := e.flagSet("get", "HASH", "Shows a stored level (by the SHA-256 of its canonical JSON) and its definitive result.")
	pos, code, ok := parseArgs(fs, args)
	if !ok {
		return code
	}
	if !wantArgs(fs, pos, 1, 1) {
		return exitError
	}
	lr, err := e.client().GetLevel(ctx, pos[0])
	if err != nil {
		return e.errorf("get: level %s: %v", pos[0], err)
	}
	if e.machine() {
		err = writeJSONLine(e.stdout, lr)
	} else {
		t := newTable(e.stdout)
		t.row("level", lr.Hash)
		t.row("kind", lr.Kind)
		t.row("body", clip(string(lr.Body)))
		if lr.Result == nil {
			t.row("result", "none yet (no solved or unsolvable result stored)")
		} else {
			t.row("solver", lr.Result.SolverVersion)
			resultRows(t, &lr.Result.Result)
		}
		err = t.flush()
	}
	if err != nil {
		return e.errorf("get: %v", err)
	}
	return exitOK
}

// resultRows adds a result's fields to a key/value table.
func resultRows(t *table, r *solver.Result) {
	t.row("verdict", string(r.Verdict))
	if r.Value != nil {
		t.row("value", int64Cell(r.Value))
	}
	t.row("optimal", fmt.Sprint(r.Optimal))
	if r.Proof != "" {
		t.row("proof", r.Proof)
	}
	for _, c := range sortedDetails(r.Details) {
		t.row(c[0], c[1])
	}
	t.row("nodes", fmt.Sprint(r.Stats.Nodes))
	t.row("elapsed", fmt.Sprintf("%d ms", r.Stats.ElapsedMS))
	if len(r.Plan) > 0 {
		t.row("plan", clip(string(r.Plan)))
	}
}

// sortedDetails formats a result's details as sorted key/value pairs.
func sortedDetails(d map[string]any) [][2]string {
	out := make([][2]string, 0, len(d))
	for _, k := range slices.Sorted(maps.Keys(d)) {
		v, err := json.Marshal(d[k]) // 1.8e+07 would be fmt's way
		if err != nil {
			v = fmt.Append(nil, d[k])
		}
		out = append(out, [2]string{k, strings.Trim(string(v), `"`)})
	}
	return out
}

// clip shortens long text for tables.
func clip(s string) string {
	if len(s) <= maxLevelCell {
		return s
	}
	return fmt.Sprintf("%s… (%d bytes; --json shows all)", s[:maxLevelCell], len(s))
}
