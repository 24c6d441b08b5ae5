package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/puzzled/puzzled/internal/envtest"
	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/store"
	"github.com/puzzled/puzzled/store/storetest"
)

func TestMain(m *testing.M) { os.Exit(envtest.Run(m)) }

// setup returns a store on a fresh, migrated database of this test alone.
func setup(t *testing.T) (*store.Store, context.Context) {
	t.Helper()
	st, ctx, _ := setupURL(t)
	return st, ctx
}

// setupURL is setup that also returns the database's URL (for
// storetest.Seed).
func setupURL(t *testing.T) (*store.Store, context.Context, string) {
	t.Helper()
	ctx := t.Context()
	url := envtest.PostgresURL(t)
	if err := store.Migrate(ctx, url, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, url, store.OpenOpts{AsyncCommit: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	return st, ctx, url
}

func level(body string) store.Level { return storetest.Level("twoends", []byte(body)) }

func twoends(values string) store.Level {
	return level(fmt.Sprintf(`{"kind":"twoends","values":[%s]}`, values))
}

func solved(v int64) solver.Result {
	return solver.Result{Verdict: solver.Solved, Value: solver.Int64(v), Optimal: true, Plan: []byte(`"LRL"`),
		Details: map[string]any{"winner": "first"}, Stats: solver.Stats{Nodes: 3}}
}

func mustCreateJob(t *testing.T, st *store.Store, lvl store.Level, version string) store.Job {
	t.Helper()
	j, err := st.CreateJob(t.Context(), store.JobParams{Level: lvl, Priority: "interactive", MaxAttempts: 3, SolverVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// run starts and finishes a job with res.
func run(t *testing.T, st *store.Store, id int64, version string, res solver.Result) {
	t.Helper()
	rj, err := startJob(t.Context(), st, id)
	if err != nil {
		t.Fatal(err)
	}
	ok, err := finishJob(t.Context(), st, runOf(rj), id, version, res)
	if err != nil || !ok {
		t.Fatalf("FinishJob = %v, %v; want stored", ok, err)
	}
}

func TestCreateJobReusesDefinitiveResultOfSameVersion(t *testing.T) {
	t.Parallel()
	st, ctx := setup(t)
	lvl := twoends("3,1,2")
	first := mustCreateJob(t, st, lvl, "twoends/1")
	if first.State != jobtype.Queued || first.Cached {
		t.Fatalf("first job: state %s cached %v", first.State, first.Cached)
	}
	run(t, st, first.ID, "twoends/1", solved(2))

	again := mustCreateJob(t, st, lvl, "twoends/1")
	if again.State != jobtype.Done || !again.Cached || again.Result == nil || *again.Result.Value != 2 {
		t.Fatalf("same version: got %+v", again)
	}
	if string(again.Result.Plan) != `"LRL"` {
		t.Fatalf("cached plan = %s", again.Result.Plan)
	}
	newer := mustCreateJob(t, st, lvl, "twoends/2")
	if newer.State != jobtype.Queued || newer.Cached {
		t.Fatalf("other version must run again: %+v", newer)
	}
	got, err := st.GetLevel(ctx, lvl.Hash, nil)
	if err != nil || got.Result == nil || got.Result.Verdict != solver.Solved {
		t.Fatalf("GetLevel = %+v, %v", got, err)
	}
	if _, err := st.GetLevel(ctx, twoends("9").Hash, nil); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown level: err = %v", err)
	}
}

func TestUnknownResultIsNotReused(t *testing.T) {
	t.Parallel()
	st, _ := setup(t)
	lvl := twoends("1,2")
	j := mustCreateJob(t, st, lvl, "v")
	run(t, st, j.ID, "v", solver.Result{Verdict: solver.Unknown})
	if again := mustCreateJob(t, st, lvl, "v"); again.Cached || again.State != jobtype.Queued {
		t.Fatalf("an unknown result must not complete a new job: %+v", again)
	}
}

func TestFinishJobWritesOneResult(t *testing.T) {
	t.Parallel()
	st, ctx := setup(t)
	j := mustCreateJob(t, st, twoends("5"), "v")
	// Two deliveries of the same task both start the job...
	var rj store.RunnableJob
	for range 2 {
		var err error
		if rj, err = startJob(ctx, st, j.ID); err != nil {
			t.Fatal(err)
		}
	}
	// ...and race to finish it: exactly one stores.
	var wg sync.WaitGroup
	stored := make(chan bool, 8)
	for v := range int64(8) {
		wg.Go(func() {
			ok, err := finishJob(ctx, st, runOf(rj), j.ID, "v", solved(v))
			if err != nil {
				t.Error(err)
			}
			stored <- ok
		})
	}
	wg.Wait()
	close(stored)
	n := 0
	for ok := range stored {
		if ok {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d finishes stored a result, want 1", n)
	}
	if _, err := startJob(ctx, st, j.ID); !errors.Is(err, errNotRunnable) {
		t.Fatalf("StartJob on a done job: err = %v, want ErrNotRunnable", err)
	}
}

func TestCancelJobStopsEverything(t *testing.T) {
	t.Parallel()
	st, ctx := setup(t)
	j := mustCreateJob(t, st, twoends("4,4"), "v")
	if _, err := startJob(ctx, st, j.ID); err != nil {
		t.Fatal(err)
	}
	state, err := st.CancelJob(ctx, j.ID)
	if err != nil || state != jobtype.Canceled {
		t.Fatalf("CancelJob = %q, %v", state, err)
	}
	if ok, err := finishJob(ctx, st, store.Run{Worker: testOwner.ID, Attempt: 1}, j.ID, "v", solved(0)); ok || err != nil {
		t.Fatalf("FinishJob after cancel = %v, %v; want nothing stored", ok, err)
	}
	if _, err := startJob(ctx, st, j.ID); !errors.Is(err, errNotRunnable) {
		t.Fatalf("StartJob after cancel: %v", err)
	}
	if ok, _ := st.SaveCheckpoint(ctx, store.Run{Worker: testOwner.ID, Attempt: 1}, j.ID, 1, checkpointBlob(t, 10, nil, "x")); ok {
		t.Fatal("checkpoint of a canceled job was stored")
	}
	if state, _ := st.CancelJob(ctx, j.ID); state != jobtype.Canceled {
		t.Fatalf("second cancel: state %q", state)
	}
	if _, err := st.CancelJob(ctx, 9999); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("cancel unknown: %v", err)
	}
}

func TestCheckpointKeepsNewestAndResumes(t *testing.T) {
	t.Parallel()
	st, ctx := setup(t)
	j := mustCreateJob(t, st, twoends("1,2,3"), "v")
	rj, err := startJob(ctx, st, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		seq  int32
		best string
		blob string
		want bool
	}{{1, "", "a", true}, {3, `{"plan":[0,1],"moves":2,"details":{"cleared":3}}`, "c", true}, {2, `{"plan":[9],"moves":1}`, "stale", false}} {
		var best *solver.Best
		if c.best != "" {
			best = new(solver.Best)
			if err := json.Unmarshal([]byte(c.best), best); err != nil {
				t.Fatal(err)
			}
		}
		blob := checkpointBlob(t, int(c.seq)*100, best, c.blob)
		if ok, err := st.SaveCheckpoint(ctx, runOf(rj), j.ID, c.seq, blob); err != nil || ok != c.want {
			t.Fatalf("SaveCheckpoint(seq %d) = %v, %v; want %v", c.seq, ok, err, c.want)
		}
	}
	got, err := st.GetJob(ctx, j.ID)
	if err != nil || got.Progress == nil || got.Progress.Nodes != 300 || got.Progress.Checkpoints != 3 {
		t.Fatalf("progress = %+v, %v", got.Progress, err)
	}
	if b := got.Progress.Best; b == nil || string(b.Plan) != "[0, 1]" || b.Moves != 2 || b.Details["cleared"] != 3.0 {
		t.Fatalf("best line so far = %+v, want the newest checkpoint's", b)
	}
	rj, err = startJob(ctx, st, j.ID) // the next attempt
	if err != nil || string(solver.CheckpointPayload(rj.Checkpoint)) != "c" || rj.CheckSeq != 3 || rj.Attempts != 2 {
		t.Fatalf("resume = %+v, %v", rj, err)
	}
}

// Issue 31: a final job's checkpoint blob is dropped, whichever way it
// ended, while its summary stays on its page; a live job's blob stays and
// still resumes it.
func TestFinalJobsDropTheirCheckpointBlobs(t *testing.T) {
	t.Parallel()
	st, ctx, url := setupURL(t)
	ends := []struct {
		name string
		end  func(run store.Run, id int64) error
	}{
		{"done", func(run store.Run, id int64) error {
			_, err := finishJob(ctx, st, run, id, "v", solved(1))
			return err
		}},
		{"failed", func(run store.Run, id int64) error { return st.FailJob(ctx, run, id, "boom", true) }},
		{"canceled", func(_ store.Run, id int64) error { _, err := st.CancelJob(ctx, id); return err }},
		{"still running", func(store.Run, int64) error { return nil }},
	}
	ids := make([]int64, len(ends))
	for i, e := range ends {
		j := mustCreateJob(t, st, twoends(fmt.Sprintf("%d,7,%d", i, i)), "v")
		rj, err := startJob(ctx, st, j.ID)
		if err != nil {
			t.Fatal(err)
		}
		best := &solver.Best{Plan: []byte(`[1]`), Moves: 1}
		if ok, err := st.SaveCheckpoint(ctx, runOf(rj), j.ID, 1, checkpointBlob(t, 50, best, e.name)); !ok || err != nil {
			t.Fatalf("%s: SaveCheckpoint = %v, %v", e.name, ok, err)
		}
		if err := e.end(runOf(rj), j.ID); err != nil {
			t.Fatalf("%s: %v", e.name, err)
		}
		ids[i] = j.ID
	}
	// One at a time, then the rest: the limit holds.
	if n, err := st.DropFinalCheckpoints(ctx, 1); n != 1 || err != nil {
		t.Fatalf("DropFinalCheckpoints(1) = %d, %v; want 1", n, err)
	}
	if n, err := st.DropFinalCheckpoints(ctx, 100); n != 2 || err != nil {
		t.Fatalf("DropFinalCheckpoints(100) = %d, %v; want the 2 other final jobs", n, err)
	}
	if n, err := st.DropFinalCheckpoints(ctx, 100); n != 0 || err != nil {
		t.Fatalf("third DropFinalCheckpoints = %d, %v; want nothing left", n, err)
	}
	db, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	for i, e := range ends {
		var hasBlob bool
		if err := db.QueryRow(ctx, `SELECT blob IS NOT NULL FROM checkpoints WHERE job_id = $1`, ids[i]).Scan(&hasBlob); err != nil {
			t.Fatalf("%s: %v", e.name, err)
		}
		if live := e.name == "still running"; hasBlob != live {
			t.Errorf("%s: blob kept = %v, want %v", e.name, hasBlob, live)
		}
		got, err := st.GetJob(ctx, ids[i])
		if err != nil || got.Progress == nil || got.Progress.Nodes != 50 || got.Progress.Best == nil {
			t.Errorf("%s: progress after the drop = %+v, %v; want the summary kept", e.name, got.Progress, err)
		}
	}
	rj, err := startJob(ctx, st, ids[len(ids)-1]) // the live job's next attempt
	if err != nil || string(solver.CheckpointPayload(rj.Checkpoint)) != "still running" {
		t.Fatalf("resume of the live job = %q, %v", solver.CheckpointPayload(rj.Checkpoint), err)
	}
}

// checkpointBlob is a solver's checkpoint envelope after nodes nodes, with
// best as the search's best line so far (nil: none) and payload.
func checkpointBlob(t *testing.T, nodes int, best *solver.Best, payload string) []byte {
	t.Helper()
	var blob []byte
	m, err := solver.NewMeter(t.Context(), solver.Options{Checkpoint: func(b []byte) { blob = b }})
	if err != nil {
		t.Fatal(err)
	}
	if best != nil {
		m.KeepsBest(func() solver.Best { return *best })
	}
	for range nodes {
		m.Tick()
	}
	m.Checkpoint([]byte(payload))
	return blob
}

func TestRequeueJobDoesNotCountTheAttempt(t *testing.T) {
	t.Parallel()
	st, ctx := setup(t)
	j := mustCreateJob(t, st, twoends("8"), "v")
	rj, err := startJob(ctx, st, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.RequeueJob(ctx, runOf(rj), j.ID); err != nil {
		t.Fatal(err)
	}
	got, _ := st.GetJob(ctx, j.ID)
	if got.State != jobtype.Queued || got.Attempts != 0 {
		t.Fatalf("after requeue: state %s attempts %d", got.State, got.Attempts)
	}
	claimed, err := st.ClaimLiveJobs(ctx, "", time.Now(), 10)
	if err != nil || len(claimed) != 1 || claimed[0].ID != j.ID {
		t.Fatalf("a requeued job must be dispatched at once: %+v, %v", claimed, err)
	}
	// Having run, it resumes ahead of jobs never started (queue.Resumed).
	if claimed[0].Recoveries != 1 {
		t.Fatalf("recoveries = %d after a hand-back, want 1", claimed[0].Recoveries)
	}
}

func TestBatchDuplicatesWaitForTheFirstCopy(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name     string
		res      solver.Result
		wantDone bool
	}{
		{"definitive result completes the copies", solved(7), true},
		{"unknown result releases the copies", solver.Result{Verdict: solver.Unknown}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			st, ctx := setup(t)
			a, b := twoends("1,2,3"), twoends("4")
			id, err := st.CreateBatch(ctx, store.BatchParams{
				Levels: []store.Level{a, b, a, a}, Priority: "bulk", MaxAttempts: 3,
				Versions: map[string]string{"twoends": "v"},
			})
			if err != nil {
				t.Fatal(err)
			}
			// The batch travels as one bundle, which carries the first copy
			// of each level.
			_, batches := admitAll(t, st)
			if len(batches) != 1 || len(batches[0].Bundles) != 1 {
				t.Fatalf("claimed %+v (%v), want the batch with its one bundle", batches, err)
			}
			if alone, _ := st.ClaimLiveJobs(ctx, "", time.Now(), 100); len(alone) != 0 {
				t.Fatalf("%d jobs of the batch dispatched alone, want none", len(alone))
			}
			claimed, err := st.ClaimBundle(ctx, id, 0, store.BundleSize, store.Owner{ID: "w", DeadAfter: time.Minute})
			if err != nil || len(claimed) != 2 {
				t.Fatalf("the bundle carries %d jobs (%v), want the 2 distinct levels", len(claimed), err)
			}
			var firstA int64
			_ = st.BatchResults(ctx, id, func(r store.BatchResult) error {
				if r.Seq == 0 {
					firstA = r.JobID
				}
				return nil
			})
			run(t, st, firstA, "v", c.res)
			b2, err := st.GetBatch(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if c.wantDone {
				if b2.States["done"] != 3 || b2.Cached != 2 || b2.Verdicts["solved"] != 3 {
					t.Fatalf("batch = %+v", b2)
				}
				return
			}
			// The two released copies travel alone, bulk: they wait for
			// admission.
			again, _ := admitAll(t, st)
			if len(again) != 2 {
				t.Fatalf("released copies: claimed %d, want 2", len(again))
			}
		})
	}
}

func TestBatchResultsInOrderAndCachedAcrossBatches(t *testing.T) {
	t.Parallel()
	st, ctx := setup(t)
	solvedLvl := twoends("9,9")
	j := mustCreateJob(t, st, solvedLvl, "v")
	run(t, st, j.ID, "v", solved(0))

	levels := make([]store.Level, 50)
	for i := range levels {
		levels[i] = twoends(fmt.Sprint(i))
	}
	levels[17] = solvedLvl
	id, err := st.CreateBatch(ctx, store.BatchParams{Levels: levels, Priority: "bulk", MaxAttempts: 3,
		Versions: map[string]string{"twoends": "v"}})
	if err != nil {
		t.Fatal(err)
	}
	seq := int32(0)
	err = st.BatchResults(ctx, id, func(r store.BatchResult) error {
		if r.Seq != seq || r.LevelHash != levels[seq].Hash {
			return fmt.Errorf("line %d: seq %d hash %s", seq, r.Seq, r.LevelHash)
		}
		if cached := r.Seq == 17; r.Cached != cached || (r.Result != nil) != cached {
			return fmt.Errorf("seq %d: cached %v result %v", r.Seq, r.Cached, r.Result)
		}
		seq++
		return nil
	})
	if err != nil || seq != 50 {
		t.Fatalf("results: %v after %d lines", err, seq)
	}
	b, _ := st.GetBatch(ctx, id)
	if b.Total != 50 || b.States["queued"] != 49 || b.States["done"] != 1 || b.Done != 1.0/50 {
		t.Fatalf("batch = %+v", b)
	}
	ids, err := st.CancelBatch(ctx, id)
	if err != nil || len(ids) != 49 {
		t.Fatalf("CancelBatch = %d ids, %v", len(ids), err)
	}
	if err := st.BatchResults(ctx, 999, func(store.BatchResult) error { return nil }); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown batch: %v", err)
	}
}

func TestClaimLiveJobsSharesWithoutOverlap(t *testing.T) {
	t.Parallel()
	st, ctx := setup(t)
	// 300 jobs outside a batch, and 6 batches of 100 (2 bundles each),
	// interactive: bulk work is dispatched once admitted (TestAdmitBulk).
	for i := range 300 {
		mustCreateJob(t, st, twoends(fmt.Sprint(1000+i)), "v")
	}
	for b := range 6 {
		levels := make([]store.Level, 100)
		for i := range levels {
			levels[i] = twoends(fmt.Sprint(b*100 + i))
		}
		if _, err := st.CreateBatch(ctx, store.BatchParams{Levels: levels, Priority: "interactive", MaxAttempts: 3}); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	seen := map[int64]int{}
	seenBatches := map[int64]int{}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for {
				jobs, err := st.ClaimLiveJobs(ctx, "", time.Now().Add(-time.Hour), 25)
				if err != nil {
					t.Error(err)
					return
				}
				batches, err := st.ClaimLiveBatches(ctx, "", time.Now().Add(-time.Hour), 1)
				if err != nil {
					t.Error(err)
					return
				}
				if len(jobs) == 0 && len(batches) == 0 {
					return
				}
				mu.Lock()
				for _, j := range jobs {
					seen[j.ID]++
				}
				for _, b := range batches {
					seenBatches[b.BatchID]++
					if len(b.Bundles) != 2 || b.Bundles[0] != 0 || b.Bundles[1] != store.BundleSize {
						t.Errorf("batch %d has bundles %v, want [0 %d]", b.BatchID, b.Bundles, store.BundleSize)
					}
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(seen) != 300 || len(seenBatches) != 6 {
		t.Fatalf("claimed %d distinct jobs and %d batches, want 300 and 6", len(seen), len(seenBatches))
	}
	for id, n := range seen {
		if n != 1 {
			t.Fatalf("job %d claimed %d times", id, n)
		}
	}
	for b, n := range seenBatches {
		if n != 1 {
			t.Fatalf("batch %d claimed %d times", b, n)
		}
	}
	// Once stale, they are claimed again (the reconciler's re-check).
	again, _ := st.ClaimLiveJobs(ctx, "", time.Now().Add(time.Second), 1000)
	againBatches, _ := st.ClaimLiveBatches(ctx, "", time.Now().Add(time.Second), 1000)
	if len(again) != 300 || len(againBatches) != 6 {
		t.Fatalf("stale re-claim: %d jobs and %d batches, want 300 and 6", len(again), len(againBatches))
	}
}

func TestNextAttemptSeesTheLastError(t *testing.T) {
	t.Parallel()
	st, ctx := setup(t)
	j := mustCreateJob(t, st, twoends("6,1"), "v")
	rj, err := startJob(ctx, st, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.FailJob(ctx, runOf(rj), j.ID, "solver: out of memory", false); err != nil {
		t.Fatal(err)
	}
	rj, err = startJob(ctx, st, j.ID)
	if err != nil || rj.LastError != "solver: out of memory" || rj.Attempts != 2 {
		t.Fatalf("second attempt: %+v, %v", rj, err)
	}
	if err := st.FailJob(ctx, runOf(rj), j.ID, "gave up", true); err != nil {
		t.Fatal(err)
	}
	got, _ := st.GetJob(ctx, j.ID)
	if got.State != jobtype.Failed || got.Error == nil || *got.Error != "gave up" {
		t.Fatalf("after final failure: %+v", got)
	}
}

func TestBundleFinishesQueuedJobsAndSkipsCanceledOnes(t *testing.T) {
	t.Parallel()
	st, ctx := setup(t)
	a, b, c := twoends("1"), twoends("2"), twoends("3")
	id, err := st.CreateBatch(ctx, store.BatchParams{Levels: []store.Level{a, b, c, a}, Priority: "bulk", MaxAttempts: 3,
		Versions: map[string]string{"twoends": "v"}})
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := st.ClaimBundle(ctx, id, 0, 64, testOwner)
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 3 || jobs[0].Attempts != 1 {
		t.Fatalf("bundle = %+v; want the 3 distinct levels in order (the copy waits), attempt 1 next", jobs)
	}
	if _, err := st.CancelJob(ctx, jobs[1].ID); err != nil {
		t.Fatal(err)
	}
	var fs []store.Finish
	for _, j := range jobs {
		res := solved(int64(j.ID))
		res.Stats.ElapsedMS = 5
		fs = append(fs, store.Finish{JobID: j.ID, Run: runOf(j), SolverVersion: "v", Result: res})
	}
	stored, fenced, err := st.FinishJobs(ctx, fs)
	if err != nil {
		t.Fatal(err)
	}
	if !stored[jobs[0].ID] || stored[jobs[1].ID] || !stored[jobs[2].ID] || len(fenced) != 0 {
		t.Fatalf("stored = %v, fenced %v; the canceled job must get no result, and none is fenced", stored, fenced)
	}
	j0, err := st.GetJob(ctx, jobs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if j0.State != jobtype.Done || j0.Attempts != 1 || j0.StartedAt == nil || j0.StartedAt.After(*j0.FinishedAt) {
		t.Fatalf("job finished straight from queued: %+v", j0)
	}
	batch, err := st.GetBatch(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	// The copy of a was completed from its first copy's result.
	if batch.States["done"] != 3 || batch.States["canceled"] != 1 || batch.Verdicts["solved"] != 3 || batch.Cached != 1 {
		t.Fatalf("batch = %+v", batch)
	}
	if err := st.MakeSolo(ctx, testOwner.ID, []int64{jobs[0].ID, jobs[1].ID}); err != nil {
		t.Fatal(err)
	}
	if again, err := st.ClaimBundle(ctx, id, 0, 64, testOwner); err != nil || len(again) != 0 {
		t.Fatalf("bundle after finishing = %+v (%v); want empty", again, err)
	}
}

// testOwner is the worker the tests start jobs as; it never beats, so
// another owner would find it dead.
var testOwner = store.Owner{ID: "test-worker", DeadAfter: 5 * time.Second}

// errNotRunnable: startJob found the job final or gone.
var errNotRunnable = errors.New("job is not runnable")

// startJob starts one job, as a worker's batch of starts would.
func startJob(ctx context.Context, st *store.Store, id int64) (store.RunnableJob, error) {
	jobs, err := st.StartJobs(ctx, []int64{id}, testOwner)
	if err != nil {
		return store.RunnableJob{}, err
	}
	r, ok := jobs[id]
	if !ok {
		return store.RunnableJob{}, errNotRunnable
	}
	return r, nil
}

// runOf is testOwner's run of job.
func runOf(job store.RunnableJob) store.Run { return store.RunOf(testOwner.ID, job) }

// finishJob stores the result of one job's run and reports whether it was
// stored.
func finishJob(ctx context.Context, st *store.Store, run store.Run, id int64, version string, res solver.Result) (bool, error) {
	stored, _, err := st.FinishJobs(ctx, []store.Finish{{JobID: id, Run: run, SolverVersion: version, Result: res}})
	return stored[id], err
}

// Issue 30 item 6: every connection names its process in
// pg_stat_activity, unless the URL names it already.
func TestConnectionsNameTheirProcess(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	url := envtest.PostgresURL(t)
	cases := []struct {
		name, url, app, want string
	}{
		{"from the options", url, "puzzled-work@host-a", "puzzled-work@host-a"},
		{"the URL's wins", url + "&application_name=ops-tool", "puzzled-serve", "ops-tool"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, err := store.Open(ctx, c.url, store.OpenOpts{AppName: c.app})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if err := st.Ping(ctx); err != nil {
				t.Fatal(err)
			}
			conn, err := pgx.Connect(ctx, url)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			var named bool
			err = conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
				WHERE datname = current_database() AND application_name = $1)`, c.want).Scan(&named)
			if err != nil || !named {
				t.Fatalf("no connection named %q in pg_stat_activity (error %v)", c.want, err)
			}
		})
	}
}
