//go:build !race

// The race detector keeps shadow memory for the heap it saw, which no
// collection returns: resident sizes mean nothing under -race.

package solveproc

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/puzzled/puzzled/internal/waittest"
)

// TestChildGivesMemoryBack: after a search that held a large heap for a
// while, an idle child does not keep it.
func TestChildGivesMemoryBack(t *testing.T) {
	p := newPool(t, time.Minute)
	if _, err := p.Solve(context.Background(), Request{Kind: "hog", Level: []byte(`{"n":300}`)}, nil); err != nil {
		t.Fatal(err)
	}
	pid := p.pids()[0]
	// The child frees after it has answered, when it next runs (at a low
	// priority, on a machine that may be busy).
	var rss int64
	waittest.WaitFor(t, time.Minute, "the idle child to hold less than 100 MB after a search that held 300 MB", func() bool {
		rss = childRSS(t, pid)
		return rss <= 100<<20
	})
	t.Logf("idle child: %d MB resident", rss>>20)
}

// childRSS reads VmRSS of /proc/pid/status.
func childRSS(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmRSS:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmRSS")
	return 0
}
