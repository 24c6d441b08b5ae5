package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/puzzled/puzzled/internal/solveproc"
	"github.com/puzzled/puzzled/solver/kinds"
)

// solveChildCommand is the hidden command of the child processes that run
// a worker's bulk searches (package solveproc); the worker starts them,
// nobody else should.
const solveChildCommand = "solve-child"

// runSolveChild serves solves on stdin and stdout at the given niceness
// until stdin ends. It ignores SIGINT and SIGTERM: a Ctrl-C reaches the
// whole process group, and the worker, which hands its jobs back on
// shutdown, stops the searches itself; its death closes stdin.
func runSolveChild(_ context.Context, args []string) error {
	var cfg config
	fs := flagSet(solveChildCommand, &cfg, flagGroups{})
	priority := fs.String("priority", "10", `"idle" or a niceness 0–19 (see work --bulk-priority)`)
	if err := fs.Parse(args); err != nil {
		return err
	}
	prio, err := solveproc.ParsePriority(*priority)
	if err != nil {
		return err
	}
	signal.Ignore(os.Interrupt, syscall.SIGTERM)
	logger, err := cfg.logger()
	if err != nil {
		return err
	}
	logger = logger.With(slog.String("component", "solve-child"), slog.Int("pid", os.Getpid()))
	if err := solveproc.SetPriority(prio); err != nil {
		if !prio.Idle {
			return err
		}
		// SCHED_IDLE refused (a seccomp profile, say): the lowest niceness
		// is the next best thing.
		logger.Warn("SCHED_IDLE refused, running at niceness 19", slog.Any("error", err))
		if err := solveproc.SetPriority(solveproc.Priority{Nice: 19}); err != nil {
			return err
		}
	}
	if err := solveproc.NameThreads("puzzled-solve"); err != nil {
		logger.Warn("solve process keeps its name", slog.Any("error", err))
	}
	return solveproc.Serve(context.Background(), os.Stdin, os.Stdout, kinds.Registry(), logger)
}

// solvePool returns the pool of child processes for the worker's bulk
// searches, or nil when cfg.bulkPriority is "off" (they run in the worker).
func solvePool(cfg config, logger *slog.Logger) (*solveproc.Pool, error) {
	if cfg.bulkPriority == "off" {
		return nil, nil
	}
	if _, err := solveproc.ParsePriority(cfg.bulkPriority); err != nil {
		return nil, fmt.Errorf("--bulk-priority: %w", err)
	}
	return solveproc.NewPool(solveproc.PoolConfig{Logger: logger, Command: func() *exec.Cmd {
		cmd := exec.Command(selfExe(), solveChildCommand, "--priority", cfg.bulkPriority, "--log-level", cfg.logLevel)
		cmd.Stderr = os.Stderr
		return cmd
	}}), nil
}

// selfExe is this program's executable. On Linux /proc/self/exe, which
// still starts this very build after the file was replaced by an upgrade
// (a child of another build could not read this one's checkpoints).
func selfExe() string {
	if runtime.GOOS == "linux" {
		return "/proc/self/exe"
	}
	exe, err := os.Executable()
	if err != nil {
		return os.Args[0]
	}
	return exe
}

// closePoolTimeout bounds how long a stopping worker waits for its solve
// processes to exit.
const closePoolTimeout = 10 * time.Second
