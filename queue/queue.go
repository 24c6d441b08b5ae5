// Package queue owns puzzled's asynq side: the solve task type, the three
// queues (resumed, interactive, bulk, in that order), enqueueing with task
// ids derived from the jobs, the submit protocol of a job (Submit), and the
// dispatcher that keeps Redis in step with PostgreSQL.
//
// PostgreSQL is the source of truth. A task carries only ids: one job
// (task id job:<id>, or job:<id>:r<n> after the job was taken back from a
// worker n times), or a bundle of up to BundleSize jobs of one batch
// (task id batch:<batch>:<bundle>). Task ids are derived from the jobs, so
// enqueueing the same work twice while a task is live is a no-op, which
// makes the dispatcher's re-enqueueing after a Redis loss safe.
package queue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/store"
)

// TypeSolve is the asynq task type of a solve job.
const TypeSolve = "puzzled:solve"

// Queue names: one per job priority (jobtype.Interactive, jobtype.Bulk),
// named as the priority, and Resumed for jobs that already ran and were
// taken back from a worker (handed back at shutdown, taken over from a dead
// worker). A job goes to Resumed whatever its priority, so that it goes on
// ahead of jobs never started instead of behind the backlog.
const (
	Interactive = string(jobtype.Interactive)
	Bulk        = string(jobtype.Bulk)
	Resumed     = "resumed"
)

// Queues is the asynq server's queue configuration: with strict priority,
// resumed tasks go first, then interactive ones, then bulk ones.
var Queues = map[string]int{Resumed: 3, Interactive: 2, Bulk: 1}

// BundleSize is how many jobs of a batch one bulk task carries: the jobs
// whose seq falls in [bundle·BundleSize, (bundle+1)·BundleSize). Carrying
// many small jobs per task spreads asynq's per-task cost (about three Redis
// scripts) and turns the worker's per-job PostgreSQL writes into one
// statement per bundle. A slow job makes the rest of its bundle solo (see
// worker), so a bundle never serialises long searches.
const BundleSize = store.BundleSize

// Payload is the body of a solve task: a job, or a bundle of a batch.
type Payload struct {
	JobID   int64 `json:"job_id,omitempty"`
	BatchID int64 `json:"batch_id,omitempty"`
	Bundle  int32 `json:"bundle,omitempty"`
	// Recovery is how often the job was taken back from a worker: a new
	// task id each time, since the dead worker's task may still be active
	// in asynq under the old one (see store.TakeOverJobs).
	Recovery int32 `json:"recovery,omitempty"`
}

// Carrier names the task that carries a live job: the job alone (solo jobs
// and jobs outside a batch), or its batch's bundle.
func Carrier(j store.LiveJob) Payload {
	if j.Solo || j.BatchID == 0 || j.Recoveries > 0 {
		return Payload{JobID: j.ID, Recovery: j.Recoveries}
	}
	return Payload{BatchID: j.BatchID, Bundle: j.Seq / BundleSize}
}

// QueueOf is the queue of the task carrying a live job: its priority's, or
// Resumed once it was taken back from a worker.
func QueueOf(j store.LiveJob) string {
	if j.Recoveries > 0 {
		return Resumed
	}
	return string(j.Priority)
}

// IsBundle reports whether the task carries a bundle rather than one job.
func (p Payload) IsBundle() bool { return p.JobID == 0 }

// Seqs is the range [from, to) of batch positions a bundle covers.
func (p Payload) Seqs() (from, to int32) {
	return p.Bundle * BundleSize, (p.Bundle + 1) * BundleSize
}

// TaskID is the asynq task id of the task p.
func (p Payload) TaskID() string {
	if p.IsBundle() {
		return "batch:" + strconv.FormatInt(p.BatchID, 10) + ":" + strconv.FormatInt(int64(p.Bundle), 10)
	}
	if p.Recovery > 0 {
		return TaskID(p.JobID) + ":r" + strconv.FormatInt(int64(p.Recovery), 10)
	}
	return TaskID(p.JobID)
}

// ParseTaskID is the inverse of Payload.TaskID; ok is false for an id of
// no solve task (a generation's, a webhook's).
func ParseTaskID(id string) (p Payload, ok bool) {
	parts := strings.Split(id, ":")
	num := func(s string) (int64, bool) {
		n, err := strconv.ParseInt(s, 10, 64)
		return n, err == nil && n >= 0 && strconv.FormatInt(n, 10) == s
	}
	switch {
	case len(parts) == 3 && parts[0] == "batch":
		batch, ok1 := num(parts[1])
		bundle, ok2 := num(parts[2])
		if ok1 && ok2 && batch > 0 && bundle <= math.MaxInt32 {
			return Payload{BatchID: batch, Bundle: int32(bundle)}, true
		}
	case (len(parts) == 2 || len(parts) == 3) && parts[0] == "job":
		job, ok1 := num(parts[1])
		if !ok1 || job == 0 {
			return Payload{}, false
		}
		if len(parts) == 2 {
			return Payload{JobID: job}, true
		}
		r, ok2 := num(strings.TrimPrefix(parts[2], "r"))
		if ok2 && strings.HasPrefix(parts[2], "r") && r > 0 && r <= math.MaxInt32 {
			return Payload{JobID: job, Recovery: int32(r)}, true
		}
	}
	return Payload{}, false
}

// TaskID is the asynq task id of a solo job's task.
func TaskID(jobID int64) string { return "job:" + strconv.FormatInt(jobID, 10) }

// PayloadOf decodes and checks a solve task's payload.
func PayloadOf(t *asynq.Task) (Payload, error) {
	var p Payload
	err := json.Unmarshal(t.Payload(), &p)
	if err == nil && (p.JobID < 0 || p.BatchID < 0 || p.Bundle < 0 || p.Recovery < 0 || (p.JobID == 0) == (p.BatchID == 0) ||
		(p.JobID != 0 && p.Bundle != 0) || (p.BatchID != 0 && p.Recovery != 0)) {
		err = errors.New("want a job_id (and a recovery), or a batch_id and a bundle")
	}
	if err != nil {
		return Payload{}, fmt.Errorf("queue: bad solve payload %q: %w", t.Payload(), errors.Join(err, asynq.SkipRetry))
	}
	return p, nil
}

// TaskTimeout is the asynq timeout of a task whose solve budget is maxMS
// (0: its kind's default): the budget's bound plus room to load, verify
// and store. It replaces asynq's 30-minute default so a stuck task is
// noticed.
func TaskTimeout(maxMS int64) time.Duration {
	return time.Duration(budgetBound(maxMS))*time.Millisecond + 30*time.Second
}

// budgetBound is the longest a job whose time budget is maxMS may search:
// maxMS, or for 0 solver.DefaultMaxMS, which no kind's default budget
// exceeds (a test holds every kind to it). The queue only bounds the
// default; the solve applies it (solver.BudgetFor).
func budgetBound(maxMS int64) int64 {
	if maxMS <= 0 {
		return solver.DefaultMaxMS
	}
	return maxMS
}

// TaskCheckInterval is how often an idle asynq server polls the queues:
// 20 dequeue attempts a second per worker process, for at most ~75 ms of
// added latency.
const TaskCheckInterval = 50 * time.Millisecond

// InteractivePoll is how often a worker's reserved interactive slots poll
// the interactive queue while it is empty: 1 ms on average (asynq sleeps
// half to one and a half times it), so an interactive job is picked up
// about 1 ms after it is enqueued; 1,000 cheap dequeue scripts a second
// per idle worker process.
const InteractivePoll = time.Millisecond

// maxRetry is asynq's retry count. PostgreSQL's attempts column is what
// limits attempts (the worker fails the job when it is exhausted), so asynq
// must never give up and archive a task first.
const maxRetry = 1000

// RetryDelay is the backoff between attempts: 1 s, 2 s, 4 s … capped at 30 s.
func RetryDelay(n int, _ error, _ *asynq.Task) time.Duration {
	if n > 5 {
		return 30 * time.Second
	}
	return time.Duration(1<<n) * time.Second
}

// Client enqueues solve tasks and cancels running ones.
type Client struct {
	client    *asynq.Client
	inspector *asynq.Inspector
	rdb       redis.UniversalClient // for the marker of RedisLost and the notices
	channel   string                // of NotifyInteractive
	batches   string                // of NotifyBatch
}

// NewClient connects to Redis.
func NewClient(opt asynq.RedisConnOpt) *Client {
	rdb := opt.MakeRedisClient().(redis.UniversalClient)
	return &Client{client: asynq.NewClient(opt), inspector: asynq.NewInspector(opt), rdb: rdb,
		channel: noticeChannel(rdb, "interactive"), batches: noticeChannel(rdb, "batch")}
}

// noticeChannel is the pub/sub channel of the notices of one kind
// (NotifyInteractive, NotifyBatch). Pub/sub ignores the DB index, so the
// channel names it: installations that share a Redis server on different
// DBs do not hear each other.
func noticeChannel(rdb redis.UniversalClient, kind string) string {
	db := 0
	if c, ok := rdb.(*redis.Client); ok {
		db = c.Options().DB
	}
	return "puzzled:" + kind + ":" + strconv.Itoa(db)
}

// NotifyInteractive tells every worker that an interactive job is being
// submitted, so that they stop their bulk searches for a moment (see
// worker.YieldWindow). Best effort: a notice lost costs latency, nothing
// else.
func (c *Client) NotifyInteractive(ctx context.Context) error {
	if err := c.rdb.Publish(ctx, c.channel, "").Err(); err != nil {
		return fmt.Errorf("queue: notify interactive: %w", err)
	}
	return nil
}

// InteractiveNotices calls fn for each NotifyInteractive of any client
// until ctx ends. It returns once subscribed, or with the error that
// prevented it; go-redis resubscribes after a lost connection.
func (c *Client) InteractiveNotices(ctx context.Context, fn func()) error {
	return c.notices(ctx, c.channel, fn)
}

// NotifyBatch tells every dispatcher that a batch was stored, so that one
// hands its first tasks over at once rather than at its next round (up to
// 200 ms later). Best effort, as NotifyInteractive.
func (c *Client) NotifyBatch(ctx context.Context) error {
	if err := c.rdb.Publish(ctx, c.batches, "").Err(); err != nil {
		return fmt.Errorf("queue: notify batch: %w", err)
	}
	return nil
}

// BatchNotices calls fn for each NotifyBatch of any client until ctx ends,
// as InteractiveNotices.
func (c *Client) BatchNotices(ctx context.Context, fn func()) error {
	return c.notices(ctx, c.batches, fn)
}

// notices calls fn for each message on channel until ctx ends.
func (c *Client) notices(ctx context.Context, channel string, fn func()) error {
	sub := c.rdb.Subscribe(ctx, channel)
	if _, err := sub.Receive(ctx); err != nil {
		_ = sub.Close()
		return fmt.Errorf("queue: subscribe to %s: %w", channel, err)
	}
	ch := sub.Channel()
	go func() {
		defer sub.Close()
		for {
			select {
			case <-ctx.Done():
				return
			case _, ok := <-ch:
				if !ok {
					return
				}
				fn()
			}
		}
	}()
	return nil
}

// Close closes the connections.
func (c *Client) Close() error {
	return errors.Join(c.client.Close(), c.inspector.Close(), c.rdb.Close())
}

// markerKey is a key that lives as long as Redis keeps asynq's data.
const markerKey = "puzzled:marker"

// RedisLost reports whether Redis lost its data since the last call by
// any client (FLUSHALL, a restart without persistence): the marker key is
// gone. It then sets the marker again, so one caller learns of one loss.
// The first call ever on a Redis reports a loss too.
func (c *Client) RedisLost(ctx context.Context) (bool, error) {
	set, err := c.rdb.SetNX(ctx, markerKey, time.Now().UTC().Format(time.RFC3339), 0).Result()
	if err != nil {
		return false, fmt.Errorf("queue: redis marker: %w", err)
	}
	return set, nil
}

// LeaseDuration is asynq's lease on an active task (its rdb.LeaseDuration):
// set when a server takes the task, extended to this from now at each of
// the server's heartbeats (every 5 s) while the task runs.
const LeaseDuration = 30 * time.Second

// LostAfter is how long an active task's lease may go without being
// extended before LostTasks calls it lost: a live server extends it every
// 5 s, and asynq's lease scores are whole seconds; the rest is slack for a
// busy machine. A task found lost while its server lives is only sent
// again (store.RecoverLost takes only jobs no worker holds).
const LostAfter = 8 * time.Second

// LostTasks returns the solve tasks active in asynq whose lease no server
// has extended for quiet: the server that took them died, or lost Redis,
// and asynq itself gives them back only once the lease has been expired
// for 30 s, at its recoverer's next scan (every minute). It reads asynq's
// lease sets (asynq:{<queue>}:lease, scored by the lease's end in Unix
// seconds), which asynq's Inspector does not show. The servers set the
// scores by their clocks and this reads them by its own: hosts must agree
// on the time within a second or two (NTP), as asynq itself assumes; a
// skew moves the look earlier or later, and never starts a job twice.
func (c *Client) LostTasks(ctx context.Context, quiet time.Duration) ([]Payload, error) {
	before := time.Now().Add(LeaseDuration - quiet).Unix()
	var lost []Payload
	for q := range Queues {
		ids, err := c.rdb.ZRangeByScore(ctx, "asynq:{"+q+"}:lease",
			&redis.ZRangeBy{Min: "-inf", Max: "(" + strconv.FormatInt(before, 10)}).Result()
		if err != nil {
			return nil, fmt.Errorf("queue: lost tasks of %s: %w", q, err)
		}
		for _, id := range ids {
			if p, ok := ParseTaskID(id); ok {
				lost = append(lost, p)
			}
		}
	}
	return lost, nil
}

// Ping checks that Redis answers.
func (c *Client) Ping() error { return c.client.Ping() }

// Inspector gives access to queue statistics.
func (c *Client) Inspector() *asynq.Inspector { return c.inspector }

// Enqueue hands a job to asynq, in its priority's queue. A job that
// already has a live task is left as it is (alreadyLive reports it).
func (c *Client) Enqueue(ctx context.Context, jobID int64, priority jobtype.Priority, maxMS int64) (alreadyLive bool, err error) {
	return c.EnqueueTask(ctx, Payload{JobID: jobID}, string(priority), maxMS)
}

// BundleJobSlack is the task timeout each job of a bundle adds: every job
// but the last of a bundle runs for less than the worker's SlowAfter
// (200 ms) before the rest of the bundle goes solo.
const BundleJobSlack = 200 * time.Millisecond

// EnqueueTask hands the task p to asynq, in queue q (one of Queues); maxMS
// is the largest time budget of the jobs it carries. A task that is
// already live is left as it is (alreadyLive reports it).
func (c *Client) EnqueueTask(ctx context.Context, p Payload, q string, maxMS int64) (alreadyLive bool, err error) {
	if _, ok := Queues[q]; !ok {
		return false, fmt.Errorf("queue: enqueue %s: no queue %q", p.TaskID(), q)
	}
	payload, _ := json.Marshal(p)
	timeout := TaskTimeout(maxMS)
	if p.IsBundle() {
		timeout += BundleSize * BundleJobSlack
	}
	_, err = c.client.EnqueueContext(ctx, asynq.NewTask(TypeSolve, payload),
		asynq.Queue(q), asynq.TaskID(p.TaskID()), asynq.MaxRetry(maxRetry), asynq.Timeout(timeout))
	if errors.Is(err, asynq.ErrTaskIDConflict) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("queue: enqueue %s: %w", p.TaskID(), err)
	}
	return false, nil
}

// Cancel asks the worker running a job's task to stop it (best effort; the
// worker also watches the job's state in PostgreSQL).
func (c *Client) Cancel(jobID int64) error {
	if err := c.inspector.CancelProcessing(TaskID(jobID)); err != nil {
		return fmt.Errorf("queue: cancel job %d: %w", jobID, err)
	}
	return nil
}

// BulkQueue reads the bulk queue in Redis: the tasks waiting there
// (asynq:{bulk}:pending) and how many bulk tasks asynq has processed since
// its data began (asynq:{bulk}:processed; 0 when missing), from which the
// dispatcher learns how fast the workers take bulk tasks.
func (c *Client) BulkQueue(ctx context.Context) (pending, processed int64, err error) {
	pipe := c.rdb.Pipeline()
	l := pipe.LLen(ctx, "asynq:{"+Bulk+"}:pending")
	p := pipe.Get(ctx, "asynq:{"+Bulk+"}:processed")
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return 0, 0, fmt.Errorf("queue: read the bulk queue: %w", err)
	}
	processed, _ = p.Int64() // redis.Nil: nothing processed yet
	return l.Val(), processed, nil
}
