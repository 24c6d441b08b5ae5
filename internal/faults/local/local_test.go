// Package local_test holds the fault tests of one host: a real puzzled
// stack (internal/e2etest) whose workers are killed, stopped or cut from a
// PostgreSQL or Redis that is flushed or restarted, with every job checked
// to end with exactly one correct result. They were cmd/puzzled's chaos
// tests, moved to a package of their own so that no test package comes
// near go test's ten-minute limit on a busy CI machine. The faults across
// hosts are the other packages under internal/faults.
package local_test

import (
	"net/http"
	"os"
	"testing"

	"github.com/puzzled/puzzled/api/client"
	"github.com/puzzled/puzzled/internal/contracttest"
	"github.com/puzzled/puzzled/internal/envtest"
)

// solveChildCommand is the hidden command of the puzzled binary that runs
// a solve process (cmd/puzzled's solve-child).
const solveChildCommand = "solve-child"

func TestMain(m *testing.M) { os.Exit(envtest.Run(m)) }

// checkedClient is an API client whose every exchange is checked against
// openapi.json: the tests fail when the server drifts from it.
func checkedClient(t testing.TB, url string) *client.Client {
	c := client.New(url)
	c.HTTP = &http.Client{Transport: contracttest.Transport(t, nil)}
	return c
}
