package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/puzzled/puzzled/api"
	"github.com/puzzled/puzzled/api/client"
	"github.com/puzzled/puzzled/api/wire"
	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/queue"
	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/columns"
	"github.com/puzzled/puzzled/solver/kinds"
	"github.com/puzzled/puzzled/store"
	"github.com/puzzled/puzzled/store/storetest"
	"github.com/puzzled/puzzled/worker"
)

// queuedJob stores a queued job that no worker runs (there is none).
func queuedJob(t *testing.T, f *fixture, i int) store.Job {
	t.Helper()
	lvl := store.Level{Hash: fmt.Sprintf("%064x", 0xabc000+i), Kind: "twoends", Body: []byte(fmt.Sprintf(`{"kind":"twoends","values":[%d]}`, i))}
	j, err := f.store.CreateJob(t.Context(), store.JobParams{Level: lvl, Priority: "interactive", MaxAttempts: 1, SolverVersion: "x"})
	if err != nil {
		t.Fatal(err)
	}
	return j
}

type waited struct {
	job  wire.Job
	err  error
	took time.Duration
	at   time.Time
}

// longPoll starts GET /v1/jobs/{id}?wait= and returns its outcome's channel.
func longPoll(c *client.Client, t *testing.T, id int64, wait time.Duration) <-chan waited {
	out := make(chan waited, 1)
	go func() {
		start := time.Now()
		j, err := c.WaitJob(t.Context(), id, wait)
		out <- waited{j, err, time.Since(start), time.Now()}
	}()
	return out
}

func TestLongPollJob(t *testing.T) {
	t.Parallel()
	f := setup(t, api.Config{}, false)
	c := client.New(f.url)
	ctx := t.Context()

	t.Run("returns on completion", func(t *testing.T) {
		j := queuedJob(t, f, 1)
		res := longPoll(c, t, j.ID, time.Minute)
		time.Sleep(300 * time.Millisecond) // the poll is probably waiting (if not, it answers at once)
		finished := time.Now()
		stored, _, err := storetest.Finish(ctx, f.store, []store.Finish{{JobID: j.ID, SolverVersion: "x",
			Result: solver.Result{Verdict: solver.Solved, Value: solver.Int64(3), Optimal: true}}})
		if err != nil || !stored[j.ID] {
			t.Fatalf("finish: %v %v", stored, err)
		}
		r := <-res
		if r.err != nil || r.job.State != jobtype.Done || r.job.Result == nil {
			t.Fatalf("long-poll: %+v %v", r.job, r.err)
		}
		// Woken by the notification, not by the end of the wait: the
		// bound is the wait itself, so a busy machine cannot fail it.
		if r.took >= time.Minute {
			t.Fatalf("long-poll took %s: it ran to the end of its wait", r.took)
		}
		t.Logf("answered %s after the result was stored", r.at.Sub(finished))
	})

	t.Run("a canceled job wakes its waiters", func(t *testing.T) {
		j := queuedJob(t, f, 2)
		a, b := longPoll(c, t, j.ID, time.Minute), longPoll(c, t, j.ID, time.Minute)
		time.Sleep(300 * time.Millisecond)
		if state, err := c.CancelJob(ctx, j.ID); err != nil || state != jobtype.Canceled {
			t.Fatalf("cancel: %s %v", state, err)
		}
		for _, ch := range []<-chan waited{a, b} {
			r := <-ch
			if r.err != nil || r.job.State != jobtype.Canceled || r.took >= time.Minute {
				t.Fatalf("waiter: %+v %v after %s", r.job, r.err, r.took)
			}
		}
	})

	t.Run("on time when nothing happens", func(t *testing.T) {
		j := queuedJob(t, f, 3)
		r := <-longPoll(c, t, j.ID, 1500*time.Millisecond)
		if r.err != nil || r.job.State != jobtype.Queued || r.took < 1500*time.Millisecond {
			t.Fatalf("long-poll of an idle job: %+v %v after %s", r.job, r.err, r.took)
		}
	})

	t.Run("a final job answers at once", func(t *testing.T) {
		j := queuedJob(t, f, 4)
		if _, err := c.CancelJob(ctx, j.ID); err != nil {
			t.Fatal(err)
		}
		r := <-longPoll(c, t, j.ID, time.Minute)
		if r.err != nil || r.job.State != jobtype.Canceled || r.took >= time.Minute {
			t.Fatalf("%+v %v after %s", r.job, r.err, r.took)
		}
	})

	t.Run("unknown job", func(t *testing.T) {
		if code, _ := request(t, "GET", f.url+"/v1/jobs/999999?wait=5s", "", ""); code != 404 {
			t.Fatalf("unknown job: %d", code)
		}
	})
}

func TestLongPollBatch(t *testing.T) {
	t.Parallel()
	f := setup(t, api.Config{}, false)
	c := client.New(f.url)
	ctx := t.Context()
	var levels []store.Level
	for i := range 3 {
		levels = append(levels, store.Level{Hash: fmt.Sprintf("%064x", 0xbbb000+i), Kind: "twoends",
			Body: []byte(fmt.Sprintf(`{"kind":"twoends","values":[%d]}`, i))})
	}
	id, err := f.store.CreateBatch(ctx, store.BatchParams{Levels: levels, Priority: "bulk", MaxAttempts: 1,
		Versions: map[string]string{"twoends": "x"}})
	if err != nil {
		t.Fatal(err)
	}
	var jobIDs []int64
	if err := f.store.BatchResults(ctx, id, func(br store.BatchResult) error {
		jobIDs = append(jobIDs, br.JobID)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	type batchWaited struct {
		b    wire.Batch
		err  error
		took time.Duration
	}
	res := make(chan batchWaited, 1)
	go func() {
		start := time.Now()
		b, err := c.WaitBatch(ctx, id, time.Minute)
		res <- batchWaited{b, err, time.Since(start)}
	}()
	// A waiter on one job of the batch is woken by its batch's key.
	jobRes := longPoll(c, t, jobIDs[0], time.Minute)
	time.Sleep(300 * time.Millisecond)
	if _, _, err := storetest.Finish(ctx, f.store, []store.Finish{{JobID: jobIDs[0], SolverVersion: "x",
		Result: solver.Result{Verdict: solver.Solved, Value: solver.Int64(1), Optimal: true}}}); err != nil {
		t.Fatal(err)
	}
	if r := <-jobRes; r.err != nil || r.job.State != jobtype.Done || r.took >= time.Minute {
		t.Fatalf("job of the batch: %+v %v after %s", r.job, r.err, r.took)
	}
	select {
	case r := <-res:
		t.Fatalf("the batch waiter answered with jobs still queued: %+v %v", r.b, r.err)
	case <-time.After(300 * time.Millisecond):
	}
	if _, err := c.CancelBatch(ctx, id); err != nil {
		t.Fatal(err)
	}
	r := <-res
	if r.err != nil || r.b.Done != 1 || r.b.States["canceled"] != 2 || r.took >= time.Minute {
		t.Fatalf("batch long-poll: %+v %v after %s", r.b, r.err, r.took)
	}
	start := time.Now()
	if b, err := c.WaitBatch(ctx, id, time.Minute); err != nil || b.Done != 1 || time.Since(start) >= time.Minute {
		t.Fatalf("a final batch: %+v %v", b, err)
	}
}

// TestInteractiveSlotWhileBulkBusy runs a worker with one bulk slot and one
// reserved interactive slot: while a slow bulk job holds the bulk slot, an
// interactive job still runs to completion.
func TestInteractiveSlotWhileBulkBusy(t *testing.T) {
	t.Parallel()
	f := setup(t, api.Config{}, false)
	opt := f.redis
	qc := queue.NewClient(opt)
	t.Cleanup(func() { qc.Close() })
	wctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	w := worker.New(worker.Config{Store: f.store, Registry: kinds.Registry()})
	d := queue.NewDispatcher(queue.DispatcherConfig{Store: f.store, Client: qc, Poll: 20 * time.Millisecond})
	go func() {
		defer close(done)
		_ = worker.Serve(wctx, w, worker.ServeConfig{Redis: opt, Concurrency: 1, InteractiveSlots: 1, Dispatcher: d})
	}()
	t.Cleanup(func() { stop(); <-done })
	c := client.New(f.url)
	ctx := t.Context()

	r := rand.New(rand.NewPCG(7, 7))
	// A search that runs until its budget: 200 pieces, a score out of reach.
	lvl, err := columns.Generate(r, columns.GenConfig{Width: 8, Height: 14, Rule: columns.RuleLines, Colors: 6,
		Fill: 0.4, Pieces: 200, Goal: columns.GoalScore, Score: 5000})
	if err != nil {
		t.Fatal(err)
	}
	slow, err := c.CreateJob(ctx, lvl.Canonical(), jobtype.Options{Priority: "bulk", Budget: solver.Budget{MaxMS: 30_000}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = c.CancelJob(context.Background(), slow.ID) })
	for deadline := time.Now().Add(time.Minute); ; {
		j, err := c.GetJob(ctx, slow.ID)
		if err != nil {
			t.Fatal(err)
		}
		if j.State == jobtype.Running {
			break
		}
		if time.Now().After(deadline) || j.State.Final() {
			t.Fatalf("the bulk job never ran long: %+v", j)
		}
		time.Sleep(20 * time.Millisecond)
	}
	quick, err := c.CreateJob(ctx, json.RawMessage(`{"kind":"twoends","values":[5,9,2,7]}`), jobtype.Options{})
	if err != nil {
		t.Fatal(err)
	}
	j, err := c.WaitJob(ctx, quick.ID, 20*time.Second)
	if err != nil || j.State != jobtype.Done {
		t.Fatalf("interactive job while the bulk slot is busy: %+v %v", j, err)
	}
	if s, err := c.GetJob(ctx, slow.ID); err != nil || s.State != jobtype.Running {
		t.Fatalf("the bulk job is no longer running, the test proves nothing: %+v %v", s, err)
	}
}
