package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"

	"golang.org/x/term"

	"github.com/puzzled/puzzled/api/client"
	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/kinds"
)

// globals are the flags every command accepts, before or after its name.
type globals struct {
	server string
	token  string
	json   bool
	jsonOK bool // --json was given explicitly
}

func (g *globals) register(fs *flag.FlagSet) {
	fs.StringVar(&g.server, "server", g.server, "puzzled base URL [PUZZLED_SERVER]")
	fs.StringVar(&g.token, "token", g.token, "bearer token [PUZZLED_TOKEN]")
	fs.Var((*jsonFlag)(g), "json", "machine output (JSON) even on a terminal; --json=false forces tables")
}

// jsonFlag is the boolean --json flag; it records that it was given.
type jsonFlag globals

func (f *jsonFlag) IsBoolFlag() bool { return true }

func (f *jsonFlag) String() string {
	if f == nil {
		return "false"
	}
	return strconv.FormatBool(f.json)
}

func (f *jsonFlag) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("want true or false, got %q", s)
	}
	f.json, f.jsonOK = v, true
	return nil
}

// env is what a command runs with: the global settings, the process's
// standard streams, and the registry of the kinds it reads and solves
// locally (the server's own decides what the server accepts).
type env struct {
	globals
	stdin          io.Reader
	stdout, stderr io.Writer
	registry       *solver.Registry
}

func newEnv(stdin io.Reader, stdout, stderr io.Writer) *env {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, registry: kinds.Registry()}
	e.server = os.Getenv("PUZZLED_SERVER")
	if e.server == "" {
		e.server = "http://127.0.0.1:8080"
	}
	e.token = os.Getenv("PUZZLED_TOKEN")
	return e
}

// client returns an API client for the configured server.
func (e *env) client() *client.Client {
	c := client.New(e.server)
	c.Token = e.token
	return c
}

// machine reports whether output should be JSON: when asked for, or when
// stdout is not a terminal.
func (e *env) machine() bool {
	if e.jsonOK {
		return e.json
	}
	return !isTerminal(e.stdout)
}

// errorf prints an error message on stderr and returns exitError.
func (e *env) errorf(format string, args ...any) int {
	fmt.Fprintf(e.stderr, "puzzlectl: "+format+"\n", args...)
	return exitError
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
