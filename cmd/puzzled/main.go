// Command puzzled is the puzzled server: `serve` runs the HTTP API, `work`
// runs solve workers, `dev` runs everything on one machine with embedded
// PostgreSQL and Redis, `migrate up` applies the schema, and `bench`
// measures queue and end-to-end throughput.
//
// Configuration comes from flags, each with an environment default
// (PUZZLED_DATABASE_URL, PUZZLED_REDIS_ADDR, PUZZLED_HTTP_ADDR, …); see
// `puzzled <command> -h`.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

const usage = `puzzled — solves puzzle levels at scale

usage: puzzled <command> [flags]

commands:
  serve     run the HTTP API
  work      run solve workers (asynq) and the dispatcher
  dev       run API + worker with embedded PostgreSQL and Redis (data in ./.puzzled)
  migrate   apply database migrations ("migrate up")
  bench     measure asynq and end-to-end throughput
  bench-query  measure list queries on 1,000,000 seeded jobs and interactive latency
  bench-fair   measure the fair share of the workers between two projects' bulk batches
  bench-retention  measure retention over 1,000,000 jobs in 30 simulated days
  token     create an API token ("token create --name N [--read-only]")
  gc        delete what the projects' retention lets go, now (workers also do it every --gc-every)
  health    exit 0 if a URL (default the local /readyz) answers 200

Run "puzzled <command> -h" for the flags of a command.
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cmds := map[string]func(context.Context, []string) error{
		"serve":           runServe,
		"work":            runWork,
		"dev":             runDev,
		"migrate":         runMigrate,
		"bench":           runBench,
		"bench-query":     runBenchQuery,
		"bench-fair":      runBenchFair,
		"bench-retention": runBenchRetention,
		"token":           runToken,
		"gc":              runGC,
		"health":          runHealth,

		solveChildCommand: runSolveChild, // started by work and dev; not in the usage
	}
	run, ok := cmds[os.Args[1]]
	if !ok {
		if isHelpFlag(os.Args[1]) {
			fmt.Print(usage)
			return
		}
		fmt.Fprintf(os.Stderr, "puzzled: unknown command %q\n\n%s", os.Args[1], usage)
		os.Exit(2)
	}
	err := run(ctx, os.Args[2:])
	if errors.Is(err, flag.ErrHelp) { // -h: the flag set has printed its usage
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "puzzled:", err)
		os.Exit(1)
	}
}

// isHelpFlag reports whether arg asks for help the way the flag package
// understands it.
func isHelpFlag(arg string) bool {
	switch arg {
	case "-h", "-help", "--help", "--h", "help":
		return true
	}
	return false
}
