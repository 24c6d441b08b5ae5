// Package e2etest is what end-to-end tests share: building the puzzled binary,
// running it as subprocesses (serve, work, dev) and waiting on their JSON
// log lines, and an independent oracle of twoends to check results with.
package e2etest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
	return bin, statSources()
})

// statSources stats every file of this module that the binary is built
// from. go test caches a passing result and runs the test again only when
// its own package, or a file or variable the test read, changed; a binary
// built by a subprocess is none of those, so without this `go test ./...`
// kept passing the end-to-end tests on a binary of stale sources. A stat
// (os.Stat logs it for the cache) makes any change to those files count.
func statSources() error {
	// A line per package of this module: its go.mod, its directory, and
	// its Go and embedded files (other modules are fixed by go.sum).
	const format = `{{if and .Module .Module.Main}}{{.Module.GoMod}}|{{.Dir}}|{{join .GoFiles "|"}}|{{join .EmbedFiles "|"}}{{end}}`
	out, err := exec.Command("go", "list", "-deps", "-f", format, "github.com/puzzled/puzzled/cmd/puzzled").Output()
	if err != nil {
		return fmt.Errorf("go list puzzled's packages: %w", err)
	}
	var files []string
	for _, line := range strings.Split(string(out), "\n") {
		if line == "" {
			continue // a package of another module
		}
		parts := strings.Split(line, "|")
		files = append(files, parts[0], filepath.Join(filepath.Dir(parts[0]), "go.sum"))
		for _, name := range parts[2:] {
			if name != "" {
				files = append(files, filepath.Join(parts[1], name))
			}
		}
	}
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			return fmt.Errorf("stat %s: %w", f, err)
		}
	}
	return nil
}

// Binary returns the path of a freshly built puzzled binary.
func Binary(t testing.TB) string {
	t.Helper()
	bin, err := buildPuzzled()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}
