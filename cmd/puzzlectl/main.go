// Command puzzlectl is the client CLI of puzzled.
//
// It solves levels locally without a server (solve), submits folders, globs
// and NDJSON files of levels as one batch and follows it with a progress bar
// (submit, wait), reports a batch's progress and results (status, results),
// looks up stored levels (get), lists jobs, batches and levels with filters
// (jobs, batches, levels), runs one interactive job (job), deals a sheep
// layout anew into NDJSON levels for a batch (deal) and prints the
// canonical state of a level after each move of a plan (replay), and checks
// levels against what is expected of them in CI (check).
//
// Exit status: 0 on success; 1 on an error (bad usage, an invalid level, an
// unreachable server); 2 when a waited-for batch or job has a failed job or
// a verdict named by --fail-on; 130 when interrupted. check has the exit
// statuses of a CI step instead: 0 every level meets its expectation, 1 some
// level does not, 2 usage or server errors (docs/ci.md).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Exit statuses.
const (
	exitOK          = 0
	exitError       = 1
	exitBatchFailed = 2
	exitInterrupted = 130
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // a second Ctrl-C kills at once
	}()
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// command is one subcommand.
type command struct {
	name  string
	usage string // arguments after the name
	brief string
	run   func(ctx context.Context, e *env, args []string) int
}

// commands lists the subcommands.
func commands() []command {
	return []command{
		{"solve", "[flags] FILE|DIR|-...", "solve levels locally, no server", runSolve},
		{"submit", "[flags] PATH|GLOB...", "submit levels as one batch", runSubmit},
		{"check", "[flags] PATH|GLOB...", "check levels in CI: expected verdicts, JUnit report, exit 1 on a miss", runCheck},
		{"status", "[--job] ID", "show a batch's (or a job's) progress", runStatus},
		{"results", "[--format ndjson|csv|table] ID", "print a batch's results in submission order", runResults},
		{"wait", "[--fail-on V]... ID", "wait for a batch with a progress bar", runWait},
		{"report", "ID", "show a batch's report: verdicts by kind, unsolvable levels, percentiles", runReport},
		{"get", "HASH", "show a stored level and its definitive result", runGet},
		{"jobs", "[flags]", "list jobs by batch, kind, state, verdict, label, level, time", runJobs},
		{"batches", "[flags]", "list batches by label and time", runBatches},
		{"levels", "[flags]", "list stored levels by kind, verdict, label", runLevels},
		{"job", "[flags] FILE", "solve one level as an interactive job and print the solution", runJob},
		{"deal", "[flags] LAYOUT", "write N deals of a sheep layout as NDJSON levels, no server", runDeal},
		{"generate", "[flags] TEMPLATE", "make N solvable levels in a difficulty band from a template (--local: no server)", runGenerate},
		{"repair", "[flags] JOB_ID", "look for the smallest edits that make an unsolvable job's level solvable", runRepair},
		{"replay", "[--step K] (--job ID | FILE)", "print a level's canonical state after each move of its plan", runReplay},
	}
}

// run is the whole program: it parses the global flags, runs the
// subcommand and returns the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runEnv(ctx, newEnv(stdin, stdout, stderr), args)
}

// runEnv is run in e (tests give it another registry).
func runEnv(ctx context.Context, e *env, args []string) int {
	stdout, stderr := e.stdout, e.stderr
	fs := flag.NewFlagSet("puzzlectl", flag.ContinueOnError)
	fs.SetOutput(stderr)
	e.globals.register(fs)
	fs.Usage = func() { printUsage(stderr, fs) }
	if err := fs.Parse(args); err != nil {
		return usageExit(err)
	}
	if fs.NArg() == 0 {
		printUsage(stderr, fs)
		return exitError
	}
	name := fs.Arg(0)
	for _, c := range commands() {
		if c.name == name {
			return c.run(ctx, e, fs.Args()[1:])
		}
	}
	if name == "help" {
		printUsage(stdout, fs)
		return exitOK
	}
	fmt.Fprintf(stderr, "puzzlectl: unknown command %q\n", name)
	printUsage(stderr, fs)
	return exitError
}

func printUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, "Usage: puzzlectl [--server URL] [--token T] [--json] COMMAND [flags] ARGS\n\nCommands:\n")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.brief)
	}
	fmt.Fprintf(w, "\nRun puzzlectl COMMAND -h for a command's flags. Global flags (also accepted after COMMAND):\n")
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// usageExit maps a flag parsing error to an exit status: -h is a success.
func usageExit(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	return exitError
}
