package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/puzzled/puzzled/internal/waittest"
	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/store"
)

// otherOwner takes jobs over from testOwner, which never beats and so is
// always found dead.
var otherOwner = store.Owner{ID: "other-worker", DeadAfter: 5 * time.Second}

// staleWrites makes every write a run can make, for run, and returns the
// error of each (FinishJobs': ErrFenced when it lists the job as fenced).
func staleWrites(t *testing.T, st *store.Store, run store.Run, id int64) map[string]error {
	t.Helper()
	ctx := t.Context()
	errs := map[string]error{}
	stored, fenced, err := st.FinishJobs(ctx, []store.Finish{{JobID: id, Run: run, SolverVersion: "v", Result: solved(1)}})
	switch {
	case err != nil:
		errs["FinishJobs"] = err
	case stored[id]:
		errs["FinishJobs"] = errors.New("stored")
	case len(fenced) == 1 && fenced[0] == id:
		errs["FinishJobs"] = store.ErrFenced
	}
	_, errs["SaveCheckpoint"] = st.SaveCheckpoint(ctx, run, id, 99, checkpointBlob(t, 10, nil, "stale"))
	errs["FailJob"] = st.FailJob(ctx, run, id, "stale failure", false)
	errs["RequeueJob"] = st.RequeueJob(ctx, run, id)
	errs["MarkRunning"] = st.MarkRunning(ctx, run, id)
	errs["MakeSolo"] = st.MakeSolo(ctx, run.Worker, []int64{id})
	return errs
}

// checkFenced fails unless every write of errs was refused as fenced,
// except those named in notApplicable (writes that do not apply to the
// job's state, which write nothing either way).
func checkFenced(t *testing.T, errs map[string]error, notApplicable ...string) {
	t.Helper()
	skip := map[string]bool{}
	for _, n := range notApplicable {
		skip[n] = true
	}
	for name, err := range errs {
		if !skip[name] && !errors.Is(err, store.ErrFenced) {
			t.Errorf("%s of the stale run: %v; want ErrFenced", name, err)
		}
	}
}

// A job taken over by another worker (its owner found dead), and a job
// started again by the same worker: the earlier run's writes are refused,
// the job is left as the newer run has it, and the newer run's result is
// stored.
func TestFencedSoloRunWritesAreRefused(t *testing.T) {
	t.Parallel()
	st, ctx := setup(t)
	j := mustCreateJob(t, st, twoends("7,1"), "v")
	first, err := startJob(ctx, st, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	// The same worker's next attempt (the first failed): attempt 1's late
	// writes are refused.
	if err := st.FailJob(ctx, runOf(first), j.ID, "boom", false); err != nil {
		t.Fatal(err)
	}
	second, err := startJob(ctx, st, j.ID)
	if err != nil || second.Attempts != 2 {
		t.Fatalf("second start: %+v, %v", second, err)
	}
	checkFenced(t, staleWrites(t, st, runOf(first), j.ID), "MarkRunning")
	// Taken over by another worker: attempt 2's writes are refused too.
	taken, err := st.StartJobs(ctx, []int64{j.ID}, otherOwner)
	if err != nil || taken[j.ID].Attempts != 3 {
		t.Fatalf("takeover: %+v, %v", taken, err)
	}
	checkFenced(t, staleWrites(t, st, runOf(second), j.ID), "MarkRunning")

	got, err := st.GetJob(ctx, j.ID)
	if err != nil || got.State != jobtype.Running || got.Attempts != 3 || got.Progress != nil || got.Result != nil {
		t.Fatalf("after the stale writes: %+v, %v; want running, attempt 3, no checkpoint, no result", got, err)
	}
	newer := store.RunOf(otherOwner.ID, taken[j.ID])
	stored, fenced, err := st.FinishJobs(ctx, []store.Finish{{JobID: j.ID, Run: newer, SolverVersion: "v", Result: solved(4)}})
	if err != nil || !stored[j.ID] || len(fenced) != 0 {
		t.Fatalf("the newer run's finish: stored %v, fenced %v, %v", stored, fenced, err)
	}
	// A final job fences nothing: its writes are simply not applied.
	for name, err := range staleWrites(t, st, runOf(second), j.ID) {
		if err != nil {
			t.Errorf("%s on a done job: %v; want no error and no write", name, err)
		}
	}
}

// A bundle claimed by another worker (its owner found dead): the old
// owner's writes to the bundle's jobs are refused, fast (queued) and slow
// (marked running) jobs alike.
func TestFencedBundleRunWritesAreRefused(t *testing.T) {
	t.Parallel()
	st, ctx := setup(t)
	id, err := st.CreateBatch(ctx, store.BatchParams{Levels: []store.Level{twoends("1"), twoends("2"), twoends("3")},
		Priority: "bulk", MaxAttempts: 3, Versions: map[string]string{"twoends": "v"}})
	if err != nil {
		t.Fatal(err)
	}
	mine, err := st.ClaimBundle(ctx, id, 0, 64, testOwner)
	if err != nil || len(mine) != 3 {
		t.Fatalf("claim: %+v, %v", mine, err)
	}
	// Job 1 turned slow in the first owner's run.
	if err := st.MarkRunning(ctx, runOf(mine[1]), mine[1].ID); err != nil {
		t.Fatal(err)
	}
	theirs, err := st.ClaimBundle(ctx, id, 0, 64, otherOwner)
	if err != nil || len(theirs) != 3 {
		t.Fatalf("takeover of the bundle: %+v, %v", theirs, err)
	}
	checkFenced(t, staleWrites(t, st, runOf(mine[0]), mine[0].ID), "RequeueJob")
	checkFenced(t, staleWrites(t, st, runOf(mine[1]), mine[1].ID), "MarkRunning")

	var fs []store.Finish
	for _, j := range theirs {
		fs = append(fs, store.Finish{JobID: j.ID, Run: store.RunOf(otherOwner.ID, j), SolverVersion: "v", Result: solved(j.ID)})
	}
	stored, fenced, err := st.FinishJobs(ctx, fs)
	if err != nil || len(stored) != 3 || len(fenced) != 0 {
		t.Fatalf("the new owner's finishes: stored %v, fenced %v, %v", stored, fenced, err)
	}
	b, err := st.GetBatch(ctx, id)
	if err != nil || b.States["done"] != 3 || b.Verdicts["solved"] != 3 {
		t.Fatalf("batch: %+v, %v", b, err)
	}
}

// A job sent solo and not started again is held by no run: the bundle's
// run may no longer write it.
func TestJobSentSoloIsNoLongerTheBundles(t *testing.T) {
	t.Parallel()
	st, ctx := setup(t)
	id, err := st.CreateBatch(ctx, store.BatchParams{Levels: []store.Level{twoends("4"), twoends("5")},
		Priority: "bulk", MaxAttempts: 3, Versions: map[string]string{"twoends": "v"}})
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := st.ClaimBundle(ctx, id, 0, 64, testOwner)
	if err != nil || len(jobs) != 2 {
		t.Fatalf("claim: %+v, %v", jobs, err)
	}
	if err := st.MakeSolo(ctx, testOwner.ID, []int64{jobs[0].ID}); err != nil {
		t.Fatal(err)
	}
	checkFenced(t, staleWrites(t, st, runOf(jobs[0]), jobs[0].ID), "RequeueJob")
	// The job still in the bundle is the bundle's.
	if ok, err := finishJob(ctx, st, runOf(jobs[1]), jobs[1].ID, "v", solved(5)); !ok || err != nil {
		t.Fatalf("finish of the job left in the bundle: %v, %v", ok, err)
	}
}

// A job canceled while its run's FinishJobs waits on it (#30 item 4's
// wrong logs): the result is not stored, and the job is not reported as
// fenced, since no other run holds it — it ended.
func TestFinishOfAJobCanceledMeanwhileIsNotFenced(t *testing.T) {
	t.Parallel()
	st, ctx, url := setupURL(t)
	j := mustCreateJob(t, st, twoends("7,2"), "v")
	rj, err := startJob(ctx, st, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	db, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(context.Background())
	// The cancel holds the job's row while FinishJobs takes its snapshot,
	// and commits once FinishJobs waits for the row.
	tx, err := db.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `UPDATE jobs SET state = 'canceled', finished_at = now(), worker_id = NULL WHERE id = $1`, j.ID); err != nil {
		t.Fatal(err)
	}
	type finished struct {
		stored map[int64]bool
		fenced []int64
		err    error
	}
	done := make(chan finished, 1)
	go func() {
		stored, fenced, err := st.FinishJobs(ctx, []store.Finish{{JobID: j.ID, Run: runOf(rj), SolverVersion: "v", Result: solved(1)}})
		done <- finished{stored, fenced, err}
	}()
	waitForLockWait(t, db)
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	f := <-done
	if f.err != nil || f.stored[j.ID] || len(f.fenced) != 0 {
		t.Fatalf("FinishJobs of a job canceled meanwhile: stored %v, fenced %v, %v; want neither", f.stored, f.fenced, f.err)
	}
}

// waitForLockWait waits until some other session of the database waits
// for a lock.
func waitForLockWait(t *testing.T, db *pgx.Conn) {
	t.Helper()
	waittest.WaitFor(t, 30*time.Second, "a session to wait for the row", func() bool {
		var n int
		if err := db.QueryRow(t.Context(), `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n > 0
	})
}
