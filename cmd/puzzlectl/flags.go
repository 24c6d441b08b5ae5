package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
)

// flagSet returns a subcommand's flag set, with the global flags added so
// that they may also follow the command name.
func (e *env) flagSet(name, usage, brief string) *flag.FlagSet {
	fs := flag.NewFlagSet("puzzlectl "+name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: puzzlectl %s %s\n\n%s\n\nFlags:\n", name, usage, brief)
		fs.PrintDefaults()
	}
	e.globals.register(fs)
	return fs
}

// parseArgs parses flags wherever they appear among the arguments
// ("results 7 --format csv") and returns the positional arguments. After
// "--" everything is positional. ok is false when the command should end
// with code (-h, or a bad flag).
func parseArgs(fs *flag.FlagSet, args []string) (pos []string, code int, ok bool) {
	for {
		if err := fs.Parse(args); err != nil {
			return nil, usageExit(err), false
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, exitOK, true
		}
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			return append(pos, rest...), exitOK, true
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// wantArgs checks the number of positional arguments.
func wantArgs(fs *flag.FlagSet, pos []string, min, max int) bool {
	if len(pos) >= min && (max < 0 || len(pos) <= max) {
		return true
	}
	switch {
	case min == max:
		fmt.Fprintf(fs.Output(), "%s: want %d argument(s), got %d\n", fs.Name(), min, len(pos))
	case len(pos) < min:
		fmt.Fprintf(fs.Output(), "%s: want at least %d argument(s)\n", fs.Name(), min)
	default:
		fmt.Fprintf(fs.Output(), "%s: want at most %d argument(s), got %d\n", fs.Name(), max, len(pos))
	}
	fs.Usage()
	return false
}

// failOn is the repeatable --fail-on flag (comma lists allowed).
type failOn map[string]bool

func (f failOn) String() string {
	keys := make([]string, 0, len(f))
	for k := range f {
		keys = append(keys, k)
	}
	return strings.Join(keys, ",")
}

func (f failOn) Set(s string) error {
	for v := range strings.SplitSeq(s, ",") {
		switch v = strings.TrimSpace(v); v {
		case "unsolvable", "unknown", "failed":
			f[v] = true
		default:
			return fmt.Errorf("want unsolvable, unknown or failed, got %q", v)
		}
	}
	return nil
}

// parseID reads a batch or job id.
func parseID(s string) (int64, error) {
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 {
		return 0, fmt.Errorf("bad id %q: want a positive integer", s)
	}
	return id, nil
}

// parseIDArgs parses a command's flags and its one ID argument; when that
// fails it has reported why, and code is the exit status.
func parseIDArgs(e *env, fs *flag.FlagSet, args []string) (id int64, code int, ok bool) {
	pos, code, ok := parseArgs(fs, args)
	if !ok {
		return 0, code, false
	}
	if !wantArgs(fs, pos, 1, 1) {
		return 0, exitError, false
	}
	id, err := parseID(pos[0])
	if err != nil {
		return 0, e.errorf("%s: %v", strings.TrimPrefix(fs.Name(), "puzzlectl "), err), false
	}
	return id, 0, true
}
