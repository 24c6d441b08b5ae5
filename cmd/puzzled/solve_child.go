package main

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
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
	nice := fs.Int("nice", 10, "niceness of this process (0–19)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	signal.Ignore(os.Interrupt, syscall.SIGTERM)
	logger, err := cfg.logger()
	if err != nil {
		return err
	}
	logger = logger.With(slog.String("component", "solve-child"), slog.Int("pid", os.Getpid()))
	if err := solveproc.SetNice(*nice); err != nil {
		return err
	}
	if err := solveproc.NameThreads("puzzled-solve"); err != nil {
		logger.Warn("solve process keeps its name", slog.Any("error", err))
	}
	return solveproc.Serve(context.Background(), os.Stdin, os.Stdout, kinds.Registry(), logger)
}

// solvePool returns the pool of child processes for the worker's bulk
// searches, or nil when cfg.bulkNice is negative (they run in the worker).
func solvePool(cfg config, logger *slog.Logger) *solveproc.Pool {
	if cfg.bulkNice < 0 {
		return nil
	}
	return solveproc.NewPool(solveproc.PoolConfig{Logger: logger, Command: func() *exec.Cmd {
		cmd := exec.Command(selfExe(), solveChildCommand, "--nice", strconv.Itoa(cfg.bulkNice), "--log-level", cfg.logLevel)
		cmd.Stderr = os.Stderr
		return cmd
	}})
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
