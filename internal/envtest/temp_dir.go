package envtest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// tempPrefix starts the names of the folders envtest makes in os.TempDir;
// the pid of the test process follows it.
const tempPrefix = "puzzled-envtest-"

// staleAge is how old a dead process's folder must be before it is swept.
const staleAge = 15 * time.Minute

// newTempDir makes a folder for a server, named after our pid so that a
// later test process can sweep it if we die without cleaning up. Its parent,
// os.TempDir, must let the unprivileged server user through (/tmp does).
func newTempDir(kind string) (string, error) {
	sweepStale()
	dir, err := os.MkdirTemp("", fmt.Sprintf("%s%d-%s-", tempPrefix, os.Getpid(), kind))
	if err != nil {
		return "", fmt.Errorf("envtest: temporary folder: %w", err)
	}
	return dir, nil
}

// sweepStale removes folders left by test processes that no longer exist.
func sweepStale() {
	matches, _ := filepath.Glob(filepath.Join(os.TempDir(), tempPrefix+"*"))
	for _, dir := range matches {
		rest := strings.TrimPrefix(filepath.Base(dir), tempPrefix)
		pidText, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid == os.Getpid() || syscall.Kill(pid, 0) != syscall.ESRCH {
			continue
		}
		if fi, err := os.Stat(dir); err == nil && time.Since(fi.ModTime()) > staleAge {
			os.RemoveAll(dir)
		}
	}
}

// initCacheDir is where initdb results are kept for every test process of
// this machine (see devstack.PostgresConfig.InitCacheDir); it is not swept.
func initCacheDir() string { return filepath.Join(os.TempDir(), "puzzled-initdb-cache") }
