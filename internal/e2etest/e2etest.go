// Package e2etest is what end-to-end tests share: building the puzzled binary,
// running it as subprocesses (serve, work, dev) and waiting on their JSON
// log lines, and an independent oracle of twoends to check results with.
package e2etest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// buildPuzzled builds cmd/puzzled once per test binary.
var buildPuzzled = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "puzzled-test-bin-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "puzzled")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/puzzled/puzzled/cmd/puzzled").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build puzzled: %w\n%s", err, out)
	}
	return bin, nil
})

// Binary returns the path of a freshly built puzzled binary.
func Binary(t testing.TB) string {
	t.Helper()
	bin, err := buildPuzzled()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}
