package e2etest

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/puzzled/puzzled/api/client"
	"github.com/puzzled/puzzled/internal/waittest"
)

// WaitSolution waits up to a minute for a job's solution; an answer other
// than the 409 of a job still running fails the test.
func WaitSolution(t *testing.T, c *client.Client, id int64) client.Solution {
	t.Helper()
	var sol client.Solution
	waittest.WaitFor(t, time.Minute, fmt.Sprintf("the solution of job %d", id), func() bool {
		var err error
		sol, err = c.GetSolution(t.Context(), id)
		if err != nil && client.StatusOf(err) != http.StatusConflict {
			t.Fatalf("solution of job %d: %v", id, err)
		}
		return err == nil
	})
	return sol
}
