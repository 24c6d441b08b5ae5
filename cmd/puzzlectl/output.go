package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// jsonLines writes values as NDJSON through a buffer.
type jsonLines struct {
	w   *bufio.Writer
	enc *json.Encoder
}

func newJSONLines(w io.Writer) *jsonLines {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	return &jsonLines{w: bw, enc: enc}
}

func (j *jsonLines) write(v any) error {
	if err := j.enc.Encode(v); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	return nil
}

func (j *jsonLines) flush() error {
	if err := j.w.Flush(); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	return nil
}

// writeJSONLine writes one value as a line of JSON.
func writeJSONLine(w io.Writer, v any) error {
	j := newJSONLines(w)
	if err := j.write(v); err != nil {
		return err
	}
	return j.flush()
}

// table writes aligned columns for people.
type table struct {
	tw *tabwriter.Writer
}

func newTable(w io.Writer, header ...string) *table {
	t := &table{tw: tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)}
	if len(header) > 0 {
		t.row(header...)
	}
	return t
}

// row adds one row; tabs and newlines inside cells become spaces.
func (t *table) row(cells ...string) {
	for i, c := range cells {
		cells[i] = strings.NewReplacer("\t", " ", "\n", " ", "\r", " ").Replace(c)
	}
	fmt.Fprintln(t.tw, strings.Join(cells, "\t"))
}

func (t *table) flush() error {
	if err := t.tw.Flush(); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	return nil
}

// int64Cell formats an optional number; nil is empty.
func int64Cell(v *int64) string {
	if v == nil {
		return ""
	}
	return strconv.FormatInt(*v, 10)
}
