package queue

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"

	"github.com/puzzled/puzzled/internal/envtest"
	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/store"
	"github.com/puzzled/puzzled/store/storetest"
)

func TestMain(m *testing.M) { os.Exit(envtest.Run(m)) }

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// env is a migrated database and a Redis DB of the test's own.
type env struct {
	st  *store.Store
	url string // the database's
	qc  *Client
	rdb *redis.Client
}

func newEnv(t *testing.T) *env {
	t.Helper()
	url := envtest.PostgresURL(t)
	if err := store.Migrate(t.Context(), url, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(t.Context(), url, store.OpenOpts{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	addr, db := envtest.RedisAddr(t)
	opt := asynq.RedisClientOpt{Addr: addr, DB: db}
	e := &env{st: st, url: url, qc: NewClient(opt), rdb: redis.NewClient(&redis.Options{Addr: addr, DB: db})}
	t.Cleanup(func() { e.qc.Close(); e.rdb.Close() })
	return e
}

// exec runs a statement on the test's database, for state that the test
// sets instead of waiting for it.
func (e *env) exec(t *testing.T, sql string) {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), e.url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	if _, err := conn.Exec(t.Context(), sql); err != nil {
		t.Fatal(err)
	}
}

func twoendsLevel(i int) store.Level {
	return storetest.Level("twoends", fmt.Appendf(nil, `{"kind":"twoends","values":[%d,1]}`, i))
}

func (e *env) batch(t *testing.T, n int) int64 {
	t.Helper()
	levels := make([]store.Level, n)
	for i := range levels {
		levels[i] = twoendsLevel(i)
	}
	id, err := e.st.CreateBatch(t.Context(), store.BatchParams{Levels: levels, Priority: jobtype.Bulk, MaxAttempts: 3,
		Versions: map[string]string{"twoends": "v"}})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// pending lists the ids of the tasks waiting in queue q, read from Redis
// itself: after a flush asynq's client does not list its queues again, so
// the Inspector does not see them (the server still serves them).
func (e *env) pending(t *testing.T, q string) map[string]bool {
	t.Helper()
	list, err := e.rdb.LRange(t.Context(), "asynq:{"+q+"}:pending", 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, id := range list {
		ids[id] = true
	}
	return ids
}

func TestDispatcherEnqueuesEachCarrierOnceAndSweepsAfterAFlush(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const n = 2*BundleSize + 2
	batch := e.batch(t, n)
	d := NewDispatcher(DispatcherConfig{Store: e.st, Client: e.qc})
	want := map[string]bool{}
	for b := range 3 {
		want[fmt.Sprintf("batch:%d:%d", batch, b)] = true
	}
	// The batch's jobs travel in 3 bundles, handed over with their batch.
	if got, err := d.Round(t.Context()); err != nil || got != 1 {
		t.Fatalf("first round claimed %d (%v), want the batch of %d jobs", got, err, n)
	}
	if got := e.pending(t, Bulk); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("pending bulk tasks %v, want %v", got, want)
	}
	// Handed to asynq: left alone until stale.
	if got, err := d.Round(t.Context()); err != nil || got != 0 {
		t.Fatalf("second round claimed %d (%v), want 0", got, err)
	}
	// Redis loses everything: the next round notices and enqueues every
	// live job again, long before they go stale (a minute).
	if err := e.rdb.FlushDB(t.Context()).Err(); err != nil {
		t.Fatal(err)
	}
	if got, err := d.Round(t.Context()); err != nil || got != 1 {
		t.Fatalf("round after the flush claimed %d (%v), want the batch again", got, err)
	}
	if got := e.pending(t, Bulk); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("pending bulk tasks after the flush %v, want %v", got, want)
	}
	if got, err := d.Round(t.Context()); err != nil || got != 0 {
		t.Fatalf("the sweep did not end: a later round claimed %d (%v)", got, err)
	}
}

// Issue 30: after Redis lost its data, one dispatcher sweeps every live
// job and batch stamped before it noticed. Another dispatcher's admission
// of more bundles of a bulk batch between the two must not hide the
// bundles admitted before the loss from that sweep: in the multi-host
// suite they waited a whole Stale (a minute) for a task.
func TestDispatcherSweepFindsBundlesAdmittedBeforeTheLoss(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.batch(t, 8*BundleSize)
	a := NewDispatcher(DispatcherConfig{Store: e.st, Client: e.qc})
	b := NewDispatcher(DispatcherConfig{Store: e.st, Client: e.qc})
	// A's first round claims the batch and admits as many bundles as a
	// dispatcher that knows no rate yet does (minAhead).
	if _, err := a.Round(t.Context()); err != nil {
		t.Fatal(err)
	}
	first := e.pending(t, Bulk)
	if len(first) != minAhead {
		t.Fatalf("bulk tasks after the first round %v, want %d", first, minAhead)
	}
	if err := e.rdb.FlushDB(t.Context()).Err(); err != nil {
		t.Fatal(err)
	}
	// A notices the loss (its round's RedisLost), and before its round
	// claims anything, B admits more bundles of the batch.
	time.Sleep(5 * time.Millisecond)
	if lost, err := e.qc.RedisLost(t.Context()); err != nil || !lost {
		t.Fatalf("RedisLost after the flush: %v, %v", lost, err)
	}
	a.sweepBefore = time.Now()
	time.Sleep(5 * time.Millisecond)
	if n, err := b.admitRound(t.Context()); err != nil || n != 1 {
		t.Fatalf("B's admission: %d batches (%v), want 1", n, err)
	}
	if _, err := a.Round(t.Context()); err != nil {
		t.Fatal(err)
	}
	got := e.pending(t, Bulk)
	for id := range first {
		if !got[id] {
			t.Errorf("task %s, admitted before Redis lost its data, is not in Redis after the sweep (tasks %v)", id, got)
		}
	}
	if len(got) != 2*minAhead {
		t.Errorf("bulk tasks after the sweep %v, want %d: those admitted before the loss and B's", got, 2*minAhead)
	}
}

// Issue 30: the jobs of a bundle whose delivery was interrupted (its task
// retried) resume ahead of all bulk work at the next round, whatever room
// admission has: after a PostgreSQL outage they waited in admission behind
// every solo job of their project.
func TestDispatcherResumesTheJobsOfAnInterruptedBundle(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	batch := e.batch(t, minAhead*BundleSize)
	d := NewDispatcher(DispatcherConfig{Store: e.st, Client: e.qc})
	// The first round admits every bundle; the bulk queue is then too
	// full for admission to give room to anything.
	if _, err := d.Round(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := len(e.pending(t, Bulk)); got != minAhead {
		t.Fatalf("%d bulk tasks after the first round, want %d", got, minAhead)
	}
	w := store.Owner{ID: "w", DeadAfter: time.Minute}
	if err := e.st.Beat(t.Context(), w.ID, "host", 1, time.Minute); err != nil {
		t.Fatal(err)
	}
	jobs, err := e.st.ClaimBundle(t.Context(), batch, 0, BundleSize, w)
	if err != nil || len(jobs) != BundleSize {
		t.Fatalf("bundle 0 claimed %d jobs (%v), want %d", len(jobs), err, BundleSize)
	}
	resumed := []int64{jobs[1].ID, jobs[2].ID}
	if err := e.st.ResumeSolo(t.Context(), w.ID, resumed); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Round(t.Context()); err != nil {
		t.Fatal(err)
	}
	got := e.pending(t, Resumed)
	for _, id := range resumed {
		if !got[Payload{JobID: id, Recovery: 1}.TaskID()] {
			t.Errorf("job %d of an interrupted bundle has no resumed task after the next round (resumed tasks %v)", id, got)
		}
	}
}

func TestDispatcherTakesOverTheJobsOfADeadWorker(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// No wall clock decides who is dead: a minute is far longer than any
	// step of the test on a loaded machine, and the ghost's last beat (and
	// how long the others have been beating) are set back in the database
	// instead of slept through.
	const dead = time.Minute
	ghost := store.Owner{ID: "ghost", DeadAfter: dead}
	me := store.Owner{ID: "me", DeadAfter: dead}
	alive := store.Owner{ID: "alive", DeadAfter: dead}
	beat := func(o store.Owner) {
		t.Helper()
		if err := e.st.Beat(t.Context(), o.ID, "host", 1, time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	beat(ghost)
	beat(me)
	beat(alive)
	job := func(o store.Owner) int64 {
		t.Helper()
		j, err := e.st.CreateJob(t.Context(), store.JobParams{Level: twoendsLevel(int(len(o.ID))), Priority: jobtype.Bulk, MaxAttempts: 3, SolverVersion: "v"})
		if err != nil {
			t.Fatal(err)
		}
		started, err := e.st.StartJobs(t.Context(), []int64{j.ID}, o)
		if err != nil || len(started) != 1 {
			t.Fatalf("start as %s: %v, %v", o.ID, started, err)
		}
		return j.ID
	}
	ghostJob, aliveJob := job(ghost), job(alive)
	d := NewDispatcher(DispatcherConfig{Store: e.st, Client: e.qc, Owner: me})
	if _, err := d.Round(t.Context()); err != nil {
		t.Fatal(err)
	}
	// While its owner beats, nobody else starts a job.
	if again, err := e.st.StartJobs(t.Context(), []int64{ghostJob}, me); err != nil || len(again) != 0 {
		t.Fatalf("a live worker's job started again: %v, %v", again, err)
	}

	// The ghost stopped beating two minutes ago; the others have beaten
	// without a break since then (a judge must have, see the next test).
	e.exec(t, `UPDATE workers SET heartbeat_at = now() - interval '2 minutes' WHERE id = 'ghost'`)
	e.exec(t, `UPDATE workers SET beating_since = now() - interval '2 minutes' WHERE id IN ('me', 'alive')`)
	beat(me)
	beat(alive)
	if _, err := d.Round(t.Context()); err != nil {
		t.Fatal(err)
	}
	resumed := e.pending(t, Resumed)
	if want := fmt.Sprintf("job:%d:r1", ghostJob); len(resumed) != 1 || !resumed[want] {
		t.Fatalf("resumed tasks %v, want only %s", resumed, want)
	}
	started, err := e.st.StartJobs(t.Context(), []int64{ghostJob, aliveJob}, me)
	if err != nil || len(started) != 1 || started[ghostJob].Attempts != 2 {
		t.Fatalf("after the takeover, started %+v (%v); want the dead worker's job only, attempt 2", started, err)
	}
}

// A worker that has not beaten without a break for DeadAfter judges no one
// dead: after a PostgreSQL outage every beat is old.
func TestDispatcherWaitsForItsOwnBeatsBeforeJudging(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// The ghost's last beat is set back in the database, not slept
	// through: the newcomer's first beat and its judgement stay far within
	// a minute on a loaded machine.
	const dead = time.Minute
	ghost := store.Owner{ID: "ghost", DeadAfter: dead}
	if err := e.st.Beat(t.Context(), ghost.ID, "host", 1, time.Minute); err != nil {
		t.Fatal(err)
	}
	j, err := e.st.CreateJob(t.Context(), store.JobParams{Level: twoendsLevel(1), Priority: jobtype.Bulk, MaxAttempts: 3, SolverVersion: "v"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.st.StartJobs(t.Context(), []int64{j.ID}, ghost); err != nil {
		t.Fatal(err)
	}
	e.exec(t, `UPDATE workers SET heartbeat_at = now() - interval '2 minutes' WHERE id = 'ghost'`)
	if err := e.st.Beat(t.Context(), "newcomer", "host", 1, time.Minute); err != nil {
		t.Fatal(err)
	}
	if ids, err := e.st.TakeOverJobs(t.Context(), "newcomer", dead, time.Minute); err != nil || len(ids) != 0 {
		t.Fatalf("a worker beating for less than %v took over %v (%v)", dead, ids, err)
	}
}

func TestSubmitEnqueuesAndMarksOrLeavesItToTheDispatcher(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	log := slog.New(slog.DiscardHandler)
	job, err := Submit(t.Context(), e.st, e.qc, store.JobParams{Level: twoendsLevel(1), Priority: jobtype.Interactive,
		MaxAttempts: 3, SolverVersion: "v"}, log)
	if err != nil || job.State != jobtype.Queued {
		t.Fatalf("submit: %+v, %v", job, err)
	}
	if got := e.pending(t, Interactive); !got[TaskID(job.ID)] {
		t.Fatalf("interactive tasks %v, want %s", got, TaskID(job.ID))
	}
	if claimed, err := e.st.ClaimLiveJobs(t.Context(), "", time.Now().Add(-time.Minute), 10); err != nil || len(claimed) != 0 {
		t.Fatalf("an enqueued job was claimed again: %+v, %v", claimed, err)
	}

	// Redis out of reach: the job is stored and left to the dispatcher.
	down := NewClient(asynq.RedisClientOpt{Addr: "127.0.0.1:1", DialTimeout: 100 * time.Millisecond})
	defer down.Close()
	job2, err := Submit(t.Context(), e.st, down, store.JobParams{Level: twoendsLevel(2), Priority: jobtype.Interactive,
		MaxAttempts: 3, SolverVersion: "v"}, log)
	if err != nil || job2.State != jobtype.Queued {
		t.Fatalf("submit with Redis down: %+v, %v", job2, err)
	}
	claimed, err := e.st.ClaimLiveJobs(t.Context(), "", time.Now().Add(-time.Minute), 10)
	if err != nil || len(claimed) != 1 || claimed[0].ID != job2.ID {
		t.Fatalf("the dispatcher finds %+v (%v); want the job Redis missed", claimed, err)
	}

	// A level with a definitive result is done at once, nothing enqueued.
	if _, _, err := storetest.Finish(t.Context(), e.st, []store.Finish{{JobID: job.ID, SolverVersion: "v", Result: solvedResult()}}); err != nil {
		t.Fatal(err)
	}
	cached, err := Submit(t.Context(), e.st, e.qc, store.JobParams{Level: twoendsLevel(1), Priority: jobtype.Interactive,
		MaxAttempts: 3, SolverVersion: "v"}, log)
	if err != nil || cached.State != jobtype.Done || !cached.Cached {
		t.Fatalf("submit of a solved level: %+v, %v", cached, err)
	}
	if got := e.pending(t, Interactive); got[TaskID(cached.ID)] {
		t.Fatal("a cached job was enqueued")
	}
}

// A round whose enqueues fail (Redis refuses the scripts; here an ACL user
// without EVAL) leaves its jobs and batches unstamped, so that the next
// round, with Redis back, hands them over at once, not a minute later when
// they would go stale (the multi-host suite saw a batch wait 55 s so, when
// Redis stopped mid-round).
func TestDispatcherRetriesFailedEnqueuesAtOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	batch := e.batch(t, BundleSize+1)
	solo, err := e.st.CreateJob(t.Context(), store.JobParams{Level: twoendsLevel(1000), Priority: jobtype.Interactive,
		MaxAttempts: 3, SolverVersion: "v"})
	if err != nil {
		t.Fatal(err)
	}
	user := fmt.Sprintf("puzzled-noeval-%d", time.Now().UnixNano())
	if err := e.rdb.Do(t.Context(), "ACL", "SETUSER", user, "on", ">pw", "~*", "&*", "+@all", "-eval", "-evalsha").Err(); err != nil {
		t.Fatalf("ACL SETUSER (the test needs redis-server 6 or later): %v", err)
	}
	t.Cleanup(func() { e.rdb.Do(context.Background(), "ACL", "DELUSER", user) })
	refused := NewClient(asynq.RedisClientOpt{Addr: e.rdb.Options().Addr, DB: e.rdb.Options().DB, Username: user, Password: "pw"})
	t.Cleanup(func() { refused.Close() })

	if _, err := NewDispatcher(DispatcherConfig{Store: e.st, Client: refused}).Round(t.Context()); err == nil {
		t.Fatal("a round whose enqueues Redis refused reported no error")
	}
	conn, err := pgx.Connect(t.Context(), e.url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var stampedJobs, stampedBatches int
	if err := conn.QueryRow(t.Context(), `SELECT
		(SELECT count(*) FROM jobs WHERE id = $1 AND enqueued_at > '-infinity'), -- -infinity: to be sent first
		(SELECT count(*) FROM batch_dispatch WHERE batch_id = $2 AND enqueued_at IS NOT NULL)`, solo.ID, batch).
		Scan(&stampedJobs, &stampedBatches); err != nil {
		t.Fatal(err)
	}
	if stampedJobs+stampedBatches != 0 {
		t.Errorf("after the failed round %d job(s) and %d batch(es) are stamped enqueued; want none", stampedJobs, stampedBatches)
	}
	if got, err := NewDispatcher(DispatcherConfig{Store: e.st, Client: e.qc}).Round(t.Context()); err != nil || got != 2 {
		t.Fatalf("the next round claimed %d (%v); want the job and the batch", got, err)
	}
	want := fmt.Sprint(map[string]bool{fmt.Sprintf("batch:%d:0", batch): true, fmt.Sprintf("batch:%d:1", batch): true})
	if got := e.pending(t, Bulk); fmt.Sprint(got) != want {
		t.Errorf("pending bulk tasks %v, want %v", got, want)
	}
	if got := e.pending(t, Interactive); !got[TaskID(solo.ID)] {
		t.Errorf("pending interactive tasks %v, want the job's", got)
	}
}

// A dispatcher killed between its stamp and its enqueues leaves jobs and
// batches stamped as handed to asynq with no task: once their stamper is
// judged dead, the next round of a live dispatcher hands them over again,
// not a minute later at the stale check (found by the multi-host suite: a
// batch took 66 s instead of 10 after a kill -9). What a live worker's
// dispatcher stamped is left to it.
func TestDispatcherHandsOverWhatADeadDispatcherStamped(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const dead = time.Minute
	for _, id := range []string{"ghost", "me", "alive"} {
		if err := e.st.Beat(t.Context(), id, "host", 1, time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	solo := func(i int) int64 {
		t.Helper()
		j, err := e.st.CreateJob(t.Context(), store.JobParams{Level: twoendsLevel(1000 + i), Priority: jobtype.Bulk, MaxAttempts: 3, SolverVersion: "v"})
		if err != nil {
			t.Fatal(err)
		}
		return j.ID
	}
	stamp := func(by string) {
		t.Helper()
		// Only what no one stamped yet (NULL stamps).
		if _, err := e.st.ClaimLiveJobs(t.Context(), by, time.Now().Add(-time.Hour), 100); err != nil {
			t.Fatal(err)
		}
		if _, err := e.st.ClaimLiveBatches(t.Context(), by, time.Now().Add(-time.Hour), 100); err != nil {
			t.Fatal(err)
		}
		if _, _, _, err := e.st.AdmitBulk(t.Context(), by, func(demand []store.BulkDemand) map[int64]int {
			all := map[int64]int{}
			for _, d := range demand {
				all[d.Project] = d.Waiting
			}
			return all
		}); err != nil {
			t.Fatal(err)
		}
	}
	d := NewDispatcher(DispatcherConfig{Store: e.st, Client: e.qc, Owner: store.Owner{ID: "me", DeadAfter: dead}})
	// A first round on nothing: Redis's marker is set (on a Redis without
	// it a round enqueues every live job, see RedisLost).
	if _, err := d.Round(t.Context()); err != nil {
		t.Fatal(err)
	}
	// The ghost's dispatcher stamps a job and a batch, and dies before it
	// enqueues them; the live worker's dispatcher stamps another job and
	// is still enqueueing it.
	ghostJob, batch := solo(1), e.batch(t, 2)
	stamp("ghost")
	aliveJob := solo(2)
	stamp("alive")

	e.exec(t, `UPDATE workers SET heartbeat_at = now() - interval '90 seconds' WHERE id = 'ghost'`)
	e.exec(t, `UPDATE workers SET beating_since = now() - interval '2 minutes' WHERE id IN ('me', 'alive')`)
	if _, err := d.Round(t.Context()); err != nil {
		t.Fatal(err)
	}
	tasks := map[string]bool{}
	for q := range Queues {
		maps.Copy(tasks, e.pending(t, q))
	}
	bundle := Payload{BatchID: batch, Bundle: 0}.TaskID()
	if !tasks[TaskID(ghostJob)] || !tasks[bundle] {
		t.Fatalf("tasks after the round %v; want %s and %s, which the dead dispatcher stamped", tasks, TaskID(ghostJob), bundle)
	}
	if tasks[TaskID(aliveJob)] {
		t.Fatalf("the round enqueued %s, stamped a moment ago by a live worker's dispatcher", TaskID(aliveJob))
	}
}

// Issue 31: a dispatcher's round drops the checkpoint blob of a job that
// ended (store.DropFinalCheckpoints), and leaves a running job's.
func TestDispatcherDropsTheCheckpointsOfFinalJobs(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner := store.Owner{ID: "w", DeadAfter: time.Minute}
	if err := e.st.Beat(t.Context(), owner.ID, "host", 1, time.Minute); err != nil {
		t.Fatal(err)
	}
	var ids [2]int64
	for i := range ids {
		j, err := e.st.CreateJob(t.Context(), store.JobParams{Level: twoendsLevel(100 + i), Priority: jobtype.Bulk, MaxAttempts: 3, SolverVersion: "v"})
		if err != nil {
			t.Fatal(err)
		}
		started, err := e.st.StartJobs(t.Context(), []int64{j.ID}, owner)
		if err != nil || len(started) != 1 {
			t.Fatalf("start: %v, %v", started, err)
		}
		run := store.RunOf(owner.ID, started[j.ID])
		if ok, err := e.st.SaveCheckpoint(t.Context(), run, j.ID, 1, []byte("not an envelope; never read here")); !ok || err != nil {
			t.Fatalf("SaveCheckpoint = %v, %v", ok, err)
		}
		ids[i] = j.ID
	}
	if _, err := e.st.CancelJob(t.Context(), ids[0]); err != nil {
		t.Fatal(err)
	}
	d := NewDispatcher(DispatcherConfig{Store: e.st, Client: e.qc, Owner: owner})
	if _, err := d.Round(t.Context()); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(t.Context(), e.url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	for i, want := range []bool{false, true} {
		var kept bool
		if err := conn.QueryRow(t.Context(), `SELECT blob IS NOT NULL FROM checkpoints WHERE job_id = $1`, ids[i]).Scan(&kept); err != nil {
			t.Fatal(err)
		}
		if kept != want {
			t.Errorf("job %d (canceled: %v): blob kept = %v, want %v", ids[i], i == 0, kept, want)
		}
	}
}

// A dispatcher between rounds hears of a new batch (NotifyBatch, through
// Redis) and hands its tasks over at once, not at its next round.
func TestDispatcherWakesForANewBatch(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const poll = time.Hour // no round but the first, unless woken
	d := NewDispatcher(DispatcherConfig{Store: e.st, Client: e.qc, Poll: poll})
	ctx, stop := context.WithCancel(t.Context())
	defer stop()
	if err := e.qc.BatchNotices(ctx, d.Wake); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); d.Run(ctx) }()
	defer func() { stop(); <-done }()
	time.Sleep(100 * time.Millisecond) // its first round found nothing: it waits
	batch := e.batch(t, 3)
	if err := e.qc.NotifyBatch(t.Context()); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("batch:%d:0", batch)
	deadline := time.Now().Add(30 * time.Second)
	for !e.pending(t, Bulk)[want] {
		if time.Now().After(deadline) {
			t.Fatalf("the batch's task was not handed over after the notice (pending: %v)", e.pending(t, Bulk))
		}
		time.Sleep(10 * time.Millisecond)
	}
}
