// Package local_test holds the fault tests of a stack's processes: a
// worker killed, stopped or sent SIGTERM mid-search, a solve process left
// behind, a job delivered twice or canceled while it runs, against a real
// puzzled stack (internal/e2etest), with every job checked to end with
// exactly one correct result. A killed worker's job taken over elsewhere is
// internal/faults/takeover; the servers' faults are internal/faults/outage
// (PostgreSQL) and internal/faults/redisloss (Redis); what they share is
// internal/faults/faultstest.
//
// The tests run one at a time (no t.Parallel): each starts a whole stack
// (PostgreSQL, Redis, serve, workers and their solve processes), and four
// stacks at once beside two CPU hogs on a 2-CPU CI machine made each test
// five to fifty times slower than alone, past go test's ten-minute limit
// for a package; the fault tests are split into small packages for the
// same reason.
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
