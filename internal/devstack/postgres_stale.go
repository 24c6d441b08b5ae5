package devstack

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// waitStaleGone waits until no process of an earlier server works in dir.
//
// After a crash (or a SIGKILL of our process) the postmaster gets its
// parent-death signal and its children notice the postmaster is gone, but
// they may take a moment to exit; while one of them holds the shared memory,
// a new postmaster refuses to start. Postgres itself ignores a postmaster.pid
// whose process is dead. A pid that was reused by an unrelated process of the
// same user would still block it, so a postmaster.pid whose process does not
// work in dir is removed here.
func waitStaleGone(ctx context.Context, dir string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		pids := processesIn(dir)
		if len(pids) == 0 {
			return removeStalePidFile(dir)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w: processes %v still work in %s after %s; stop them first",
				ErrStillRunning, pids, dir, timeout)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// processesIn lists the processes whose working folder is dir (postgres
// processes chdir into their data folder). Processes we may not inspect are
// left out.
func processesIn(dir string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		if cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd")); err == nil && cwd == dir {
			pids = append(pids, pid)
		}
	}
	return pids
}

// removeStalePidFile removes dir/postmaster.pid when the process it names is
// dead or demonstrably works elsewhere. It is only called once no process we
// can see works in dir; a pid we cannot inspect is left to postgres to judge.
func removeStalePidFile(dir string) error {
	path := filepath.Join(dir, "postmaster.pid")
	data, err := os.ReadFile(path)
	if err != nil {
		return nil // none, or unreadable: postgres will judge it
	}
	first, _, _ := strings.Cut(string(data), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil || pid <= 0 {
		return nil
	}
	if syscall.Kill(pid, 0) != syscall.ESRCH {
		cwd, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "cwd"))
		if err != nil || cwd == dir {
			return nil
		}
	}
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("devstack: remove stale %s: %w", path, err)
	}
	return nil
}
