package devstack

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tempDir is a fresh folder under os.TempDir that the unprivileged server
// user can reach (t.TempDir's parents are 0700 and root-owned when root).
func tempDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "devstack-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// testLogger writes to the test log.
func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// stopCtx bounds a Stop call in a test.
func stopCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// testInitCache is the initdb cache the tests share with envtest.
func testInitCache() string { return filepath.Join(os.TempDir(), "puzzled-initdb-cache") }

// alive reports whether a process with this pid exists (zombies count as gone).
func alive(pid int) bool {
	data, err := os.ReadFile(filepath.Join("/proc", itoa(pid), "stat"))
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(data), ") ")
	return !strings.HasPrefix(rest, "Z")
}
