package main

import (
	"flag"
	"io"
	"strings"
	"testing"
)

func TestParseArgsInterspersed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args   []string
		pos    string
		format string
	}{
		{[]string{"7", "--format", "csv"}, "7", "csv"},
		{[]string{"--format=csv", "7"}, "7", "csv"},
		{[]string{"a", "-", "b", "--format", "table", "c"}, "a - b c", "table"},
		{[]string{"a", "--", "--format", "x"}, "a --format x", ""},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		format := fs.String("format", "", "")
		pos, _, ok := parseArgs(fs, tc.args)
		if !ok || strings.Join(pos, " ") != tc.pos || *format != tc.format {
			t.Errorf("%q: pos %q format %q ok %v; want %q %q", tc.args, pos, *format, ok, tc.pos, tc.format)
		}
	}
}

func TestFailOnFlag(t *testing.T) {
	t.Parallel()
	f := failOn{}
	if err := f.Set("unknown,failed"); err != nil {
		t.Fatal(err)
	}
	if err := f.Set("unsolvable"); err != nil {
		t.Fatal(err)
	}
	if !f["unknown"] || !f["failed"] || !f["unsolvable"] {
		t.Fatalf("%v", f)
	}
	if err := f.Set("solved"); err == nil {
		t.Fatal("--fail-on solved accepted")
	}
}

func TestHelpAndUsageExitCodes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"-h"}, exitOK},
		{[]string{"solve", "-h"}, exitOK},
		{[]string{"submit", "--help"}, exitOK},
		{[]string{"results", "-h"}, exitOK},
		{[]string{}, exitError},
		{[]string{"frobnicate"}, exitError},
		{[]string{"solve"}, exitError},
		{[]string{"status", "x"}, exitError},
		{[]string{"submit", "--fail-on", "solved", "x"}, exitError},
	} {
		var out strings.Builder
		if code := run(t.Context(), tc.args, strings.NewReader(""), &out, &out); code != tc.code {
			t.Errorf("%q: exit %d, want %d\n%s", tc.args, code, tc.code, out.String())
		}
	}
}
