package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// finalChannel is the channel on which the jobs_notify_final trigger
// (migrations/00005_lists.sql) announces jobs that became final: "b<id>"
// for a batch some of whose jobs did, "j<id>" for a job outside a batch.
// Other keys share it: NewWebhookKey and RevokedTokenKey.
const finalChannel = "puzzled_final"

// JobKey is the notification key that announces job j becoming final.
func JobKey(id int64, batchID *int64) string {
	if batchID != nil {
		return BatchKey(*batchID)
	}
	return "j" + strconv.FormatInt(id, 10)
}

// BatchKey is the notification key of a batch: sent whenever any of its
// jobs becomes final.
func BatchKey(id int64) string { return "b" + strconv.FormatInt(id, 10) }

// Listener holds one connection that LISTENs for final jobs and wakes the
// waiters of each key: one connection per API process, however many
// long-polls wait. When the connection drops, it reconnects and wakes every
// waiter, since notifications may have been missed meanwhile; waiters
// re-read the state from the database after every wake-up.
type Listener struct {
	conn   *pgx.ConnConfig // Store.direct: a session of its own, never through a transaction pooler
	logger *slog.Logger

	mu      sync.Mutex
	waiters map[string]map[chan struct{}]struct{}
	taps    map[chan string]struct{} // see Keys
	ready   chan struct{}            // closed once the first LISTEN succeeded
}

// NewListener returns a listener on the store's database; Run it.
func (s *Store) NewListener(logger *slog.Logger) *Listener {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Listener{
		conn:    s.direct.Copy(),
		logger:  logger,
		waiters: map[string]map[chan struct{}]struct{}{},
		taps:    map[chan string]struct{}{},
		ready:   make(chan struct{}),
	}
}

// Ready is closed once the listener first listens.
func (l *Listener) Ready() <-chan struct{} { return l.ready }

// Subscribe returns a channel that receives (without blocking the
// listener; one pending wake-up is kept) each time key is notified, and a
// function that ends the subscription. Subscribe before reading the state
// you wait on, so that no notification falls between the two.
func (l *Listener) Subscribe(key string) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	l.mu.Lock()
	set := l.waiters[key]
	if set == nil {
		set = map[chan struct{}]struct{}{}
		l.waiters[key] = set
	}
	set[ch] = struct{}{}
	l.mu.Unlock()
	return ch, func() {
		l.mu.Lock()
		delete(l.waiters[key], ch)
		if len(l.waiters[key]) == 0 {
			delete(l.waiters, key)
		}
		l.mu.Unlock()
	}
}

// AnyKey is what Keys delivers after a lost connection: any key may have
// been missed.
const AnyKey = "*"

// Keys returns a channel that receives every key notified (AnyKey after a
// reconnection), and a function that ends the subscription. Keys that find
// the channel's buffer full are dropped: a reader must also look at the
// state from time to time (the webhook emitter does, every few seconds).
func (l *Listener) Keys(buffer int) (<-chan string, func()) {
	ch := make(chan string, buffer)
	l.mu.Lock()
	l.taps[ch] = struct{}{}
	l.mu.Unlock()
	return ch, func() {
		l.mu.Lock()
		delete(l.taps, ch)
		l.mu.Unlock()
	}
}

// wake signals the waiters of key, or of every key when all is set.
func (l *Listener) wake(key string, all bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	tapKey := key
	if all {
		tapKey = AnyKey
	}
	for ch := range l.taps {
		select {
		case ch <- tapKey:
		default:
		}
	}
	for k, set := range l.waiters {
		if !all && k != key {
			continue
		}
		for ch := range set {
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	}
}

// Run listens until ctx ends, reconnecting after a lost connection.
func (l *Listener) Run(ctx context.Context) {
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		err := l.listen(ctx)
		if ctx.Err() != nil {
			return
		}
		l.logger.Warn("notification listener lost its connection; reconnecting", slog.Any("error", err))
		l.wake("", true)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}

func (l *Listener) listen(ctx context.Context) error {
	conn, err := pgx.ConnectConfig(ctx, l.conn.Copy())
	if err != nil {
		return fmt.Errorf("store: listener connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+finalChannel); err != nil {
		return fmt.Errorf("store: listen: %w", err)
	}
	select {
	case <-l.ready:
		l.wake("", true) // anything may have happened while disconnected
	default:
		close(l.ready)
	}
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			if errors.Is(err, context.Canceled) {
				return nil
			}
			return fmt.Errorf("store: wait for notification: %w", err)
		}
		l.wake(n.Payload, false)
	}
}

// BatchFinal reports whether every job of the batch is in a final state;
// it reads the batch's counts (job_counts), not its jobs.
func (s *Store) BatchFinal(ctx context.Context, id int64) (bool, error) {
	var live int64
	err := s.pool.QueryRow(ctx, `SELECT coalesce(sum(n), 0)::bigint FROM job_counts
		WHERE batch_id = $1 AND state IN `+liveStates, id).Scan(&live)
	if err != nil {
		return false, fmt.Errorf("store: batch final: %w", err)
	}
	return live == 0, nil
}
