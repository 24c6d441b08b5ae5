// Package local_test holds the fault tests of a stack's processes: a
// worker killed, stopped or sent SIGTERM mid-search, a solve process left
// behind, a job delivered twice or canceled while it runs, against a real
// puzzled stack (internal/e2etest), with every job checked to end with
// exactly one correct result. The servers' faults (Redis flushed,
// PostgreSQL restarted) are internal/faults/outage; what both share is
// internal/faults/faultstest.
package local_test

import (
	"os"
	"testing"

	"github.com/puzzled/puzzled/internal/envtest"
)

// solveChildCommand is the hidden command of the puzzled binary that runs
// a solve process (cmd/puzzled's solve-child).
const solveChildCommand = "solve-child"

func TestMain(m *testing.M) { os.Exit(envtest.Run(m)) }
