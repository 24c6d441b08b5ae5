// Package takeover_test holds the fault test of a worker killed with -9
// while it runs a long search behind a backlog: its job runs again on a
// live worker within seconds, resumes from its checkpoint and ends with
// the uninterrupted result, against a real puzzled stack on servers of the
// test's own (internal/faults/faultstest). It is a package of its own so
// that its minutes under load (a batch of 800 levels beside the search)
// count against go test's ten-minute limit alone.
package takeover_test

import (
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/puzzled/puzzled/api/client"
	"github.com/puzzled/puzzled/internal/envtest"
	"github.com/puzzled/puzzled/internal/faults/faultstest"
	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/solver"
)

func TestMain(m *testing.M) { os.Exit(envtest.Run(m)) }

// Issue 13 item 4: a dead worker's jobs run again within seconds, ahead of
// the backlog (that a Redis flush neither stalls work nor starts a job
// twice is internal/faults/redisloss). The test asserts outcomes with
// generous deadlines and logs the figures.

type holding struct {
	State    jobtype.State
	Owner    *string
	Attempts int32
}

func holdingOf(t *testing.T, conn *pgx.Conn, id int64) holding {
	t.Helper()
	var h holding
	if err := conn.QueryRow(t.Context(), `SELECT state::text, worker_id, attempts FROM jobs WHERE id = $1`, id).
		Scan(&h.State, &h.Owner, &h.Attempts); err != nil {
		t.Fatal(err)
	}
	return h
}

func TestChaosKilledWorkersJobRunsAgainElsewhereWithinSeconds(t *testing.T) {
	level, want := faultstest.HardSheep(t)
	s, _, _ := faultstest.OwnStack(t, "PUZZLED_CHECKPOINT_EVERY=250ms", "PUZZLED_CONCURRENCY=1")
	other := s.StartWorker(t)
	conn := faultstest.DBConn(t, s.DatabaseURL)
	c := client.New(s.URL)
	// A large batch queued behind the job: the job must not wait for it
	// (on a quiet machine the takeover comes at about two thirds of it).
	const n = 800
	batch := faultstest.TwoendsBatch(t, c, n, 1000)
	job, err := c.CreateJob(t.Context(), level, jobtype.Options{Budget: solver.Budget{MaxMS: 600_000}})
	if err != nil {
		t.Fatal(err)
	}
	faultstest.WaitJob(t, c, job.ID, time.Minute, "checkpointed", faultstest.Checkpointed(1))

	victim, survivor := s.Work, other
	h := holdingOf(t, conn, job.ID)
	if h.Owner == nil || h.State != jobtype.Running {
		t.Fatalf("running job %+v has no owner", h)
	}
	if *h.Owner == faultstest.WorkerID(t, other) {
		victim, survivor = other, s.Work
	}
	survivorID := faultstest.WorkerID(t, survivor)
	victim.Signal(syscall.SIGKILL)
	killed := time.Now()
	<-victim.Done()

	deadline := time.Now().Add(2 * time.Minute)
	for {
		h = holdingOf(t, conn, job.ID)
		if h.Owner != nil && *h.Owner == survivorID && h.Attempts == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("job not taken over by the live worker: %+v", h)
		}
		time.Sleep(20 * time.Millisecond)
	}
	rerun := time.Since(killed)
	b, err := c.GetBatch(t.Context(), batch)
	if err != nil {
		t.Fatal(err)
	}

	done := faultstest.WaitFinished(t, c, job.ID)
	sol, err := c.GetSolution(t.Context(), job.ID)
	if err != nil {
		t.Fatal(err)
	}
	if sol.Verdict != want.Verdict || string(sol.Plan) != string(want.Plan) || !sol.Stats.Resumed || done.Attempts != 2 {
		t.Fatalf("after the takeover: %s resumed=%v attempts %d plan %s", sol.Verdict, sol.Stats.Resumed, done.Attempts, sol.Plan)
	}
	faultstest.WaitDone(t, c, batch, 1, 4*time.Minute)
	faultstest.CheckOneResultEach(t, s.DatabaseURL, batch, n)
	var results int
	if err := conn.QueryRow(t.Context(), `SELECT count(*) FROM results WHERE job_id = $1`, job.ID).Scan(&results); err != nil || results != 1 {
		t.Fatalf("%d results for the job (%v), want 1", results, err)
	}
	if !survivor.HasLog("jobs of a dead worker taken over; they resume first") {
		t.Errorf("the survivor did not log the takeover:\n%s", survivor.Output())
	}
	t.Logf("kill -9 → the job runs again on the live worker after %v (batch of %d behind it %.0f%% done then)",
		rerun.Round(10*time.Millisecond), n, 100*b.Done)
}
