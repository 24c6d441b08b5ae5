// Package webhook sends puzzled's webhooks (docs/webhooks.md): when a batch
// or a job that named callback URLs is finished (and, if asked, as a
// batch's jobs finish), it POSTs a signed event to each URL, retrying with
// exponential backoff for more than a day.
//
// # Pieces
//
//   - [Emitter] turns what happened in PostgreSQL into events: it wakes on
//     the notifications of final jobs (store.Listener), stores each event
//     once (its id and exact body), and hands it to asynq.
//   - [Deliverer] is the asynq handler of queue.TypeWebhook: one attempt,
//     recorded in the delivery log, retried by asynq after [Backoff.Delay].
//   - [AllowList] decides where a callback may go; the sender checks it
//     again at every connection, against the address a name resolves to.
//   - [Run] runs both in a worker process, with an asynq server of their
//     own on queue.Webhooks: a callback that fails or hangs holds none of
//     the slots that solve levels.
//
// Signatures are made by [client.SignWebhook], which receivers written in
// Go can check with [client.VerifyWebhook].
package webhook

import (
	"log/slog"
	"time"
)

// Config configures the webhooks of a worker process (and the API's
// checks of callback URLs).
type Config struct {
	// Allow lists the hosts callbacks may reach; empty turns webhooks off.
	Allow AllowList
	// Timeout bounds one attempt, from connecting to the last byte of the
	// answer (default 10 s).
	Timeout time.Duration
	// MaxResponse is the most bytes of an answer read; a longer answer
	// fails the attempt (default 64 KiB).
	MaxResponse int64
	// Backoff is the retry schedule (default: DefaultBackoff).
	Backoff Backoff
	// Concurrency is how many deliveries run at once per process (default 8).
	Concurrency int
	// Poll is how often the emitter looks at every callback, whatever it
	// was told (default 5 s): a safety net for lost notifications.
	Poll time.Duration
	// JobEventsWait and JobEventsMin batch the job events of a batch: its
	// finished jobs go out when JobEventsMin are waiting, or the oldest has
	// waited JobEventsWait (defaults 100, 1 s), or the batch is finished.
	// One event carries at most JobsPerEvent jobs (default 1,000).
	JobEventsWait time.Duration
	JobEventsMin  int
	JobsPerEvent  int
	// Stale is how long past its due time a pending event waits before
	// the emitter hands it to asynq again (its task may be lost; default 1 min).
	Stale time.Duration
	// DelayedCheck is how often asynq looks for deliveries whose retry is
	// due (default: the first retry delay, between 10 ms and 5 s).
	DelayedCheck time.Duration
	Logger       *slog.Logger
	// Now is the clock of the delivery log (default time.Now).
	Now func() time.Time
}

// WithDefaults fills the unset fields.
func (c Config) WithDefaults() Config {
	if c.Timeout <= 0 {
		c.Timeout = 10 * time.Second
	}
	if c.MaxResponse <= 0 {
		c.MaxResponse = 64 << 10
	}
	if c.Backoff == (Backoff{}) {
		c.Backoff = DefaultBackoff
	}
	if c.Concurrency <= 0 {
		c.Concurrency = 8
	}
	if c.Poll <= 0 {
		c.Poll = 5 * time.Second
	}
	if c.JobEventsWait <= 0 {
		c.JobEventsWait = time.Second
	}
	if c.JobEventsMin <= 0 {
		c.JobEventsMin = 100
	}
	if c.JobsPerEvent <= 0 {
		c.JobsPerEvent = 1000
	}
	if c.Stale <= 0 {
		c.Stale = time.Minute
	}
	if c.DelayedCheck <= 0 {
		c.DelayedCheck = min(max(c.Backoff.First, 10*time.Millisecond), 5*time.Second)
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// TaskTimeout is asynq's timeout of a delivery task: the attempt's, plus
// room to load and record it.
func (c Config) TaskTimeout() time.Duration { return c.Timeout + 30*time.Second }
