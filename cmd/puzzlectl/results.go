package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"

	"github.com/puzzled/puzzled/api/wire"
)

// csvHeader are the columns of `results --format csv`.
var csvHeader = []string{"seq", "level_hash", "kind", "state", "verdict", "value", "optimal", "proof",
	"cached", "nodes", "elapsed_ms", "error"}

func runResults(ctx context.Context, e *env, args []string) int {
	fs := e.flagSet("results", "[--format ndjson|csv|table] ID",
		"Prints a batch's results in submission order. Default: table on a terminal, ndjson otherwise.")
	format := fs.String("format", "", "ndjson, csv or table")
	id, code, ok := parseIDArgs(e, fs, args)
	if !ok {
		return code
	}
	if *format == "" {
		*format = "table"
		if e.machine() {
			*format = "ndjson"
		}
	}
	w, err := newResultWriter(*format, e.stdout)
	if err != nil {
		return e.errorf("results: %v", err)
	}
	err = e.client().BatchResults(ctx, id, w.write)
	if ferr := w.flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return e.errorf("results: batch %d: %v", id, err)
	}
	return exitOK
}

// resultWriter writes batch results in one format.
type resultWriter interface {
	write(wire.BatchResult) error
	flush() error
}

func newResultWriter(format string, w io.Writer) (resultWriter, error) {
	switch format {
	case "ndjson":
		return ndjsonResults{newJSONLines(w)}, nil
	case "csv":
		cw := csv.NewWriter(w)
		if err := cw.Write(csvHeader); err != nil {
			return nil, fmt.Errorf("writing output: %w", err)
		}
		return csvResults{cw}, nil
	case "table":
		return tableResults{newTable(w, "SEQ", "LEVEL", "KIND", "STATE", "VERDICT", "VALUE", "OPTIMAL",
			"PROOF", "CACHED", "NODES", "MS", "ERROR")}, nil
	}
	return nil, fmt.Errorf("unknown format %q: want ndjson, csv or table", format)
}

type ndjsonResults struct{ *jsonLines }

func (r ndjsonResults) write(br wire.BatchResult) error { return r.jsonLines.write(br) }

type csvResults struct{ w *csv.Writer }

func (r csvResults) write(br wire.BatchResult) error {
	if err := r.w.Write(resultCells(br, false)); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	return nil
}

func (r csvResults) flush() error {
	r.w.Flush()
	if err := r.w.Error(); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	return nil
}

type tableResults struct{ t *table }

func (r tableResults) write(br wire.BatchResult) error {
	r.t.row(resultCells(br, true)...)
	return nil
}

func (r tableResults) flush() error { return r.t.flush() }

// resultCells are the csvHeader columns of one result; short cuts the
// level hash to 12 characters for tables.
func resultCells(br wire.BatchResult, short bool) []string {
	hash := br.LevelHash
	if short && len(hash) > 12 {
		hash = hash[:12]
	}
	cells := []string{strconv.Itoa(int(br.Seq)), hash, br.Kind, string(br.State), "", "", "", "",
		strconv.FormatBool(br.Cached), "", "", ""}
	if r := br.Result; r != nil {
		cells[4] = string(r.Verdict)
		cells[5] = int64Cell(r.Value)
		cells[6] = strconv.FormatBool(r.Optimal)
		cells[7] = r.Proof
		cells[9] = strconv.FormatInt(r.Stats.Nodes, 10)
		cells[10] = strconv.FormatInt(r.Stats.ElapsedMS, 10)
	}
	if br.Error != nil {
		cells[11] = *br.Error
	}
	return cells
}
