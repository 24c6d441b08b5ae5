package worker

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"time"
)

// Liveness timings. Every worker process beats in PostgreSQL every
// HeartbeatEvery; one whose last beat is older than DeadAfter is dead, and
// the dispatchers of live workers take its jobs over (store.TakeOverJobs).
// DeadAfter allows four missed beats, so a worker slowed down by a busy
// machine is not judged dead, while a killed worker's jobs run again
// within about DeadAfter plus a dispatcher round. It is the default of
// Config.DeadAfter (`puzzled work --dead-after`).
const (
	HeartbeatEvery = time.Second
	DeadAfter      = 5 * time.Second
)

// newWorkerID names a worker process: host, pid and a random suffix (a pid
// is reused after a restart, and containers share pids).
func newWorkerID() string {
	host, _ := os.Hostname()
	var r [4]byte
	_, _ = rand.Read(r[:])
	return fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(r[:]))
}

// beatOnce writes one heartbeat, registering the worker on the first. A
// beat stuck on its connection fails after DeadAfter, and the next one
// runs on a new connection (store.beatConn). Waiting less would replace a
// stuck connection sooner, but a first beat, which connects, took over
// 2.5 s on a loaded machine when ten workers started at once.
func (w *Worker) beatOnce(ctx context.Context) error {
	host, _ := os.Hostname()
	ctx, cancel := context.WithTimeout(ctx, w.owner.DeadAfter)
	defer cancel()
	err := w.cfg.Store.Beat(ctx, w.owner.ID, host, os.Getpid(), w.owner.DeadAfter/2)
	if err == nil {
		w.beaten()
	}
	return err
}

// register writes the worker's first heartbeat, trying until it is written
// (true) or ctx ends (false). The worker takes no task before, since its
// jobs' ownership rests on its beats; but a PostgreSQL slow to answer at
// that moment (a loaded machine, a checkpoint) must not end the worker.
func (w *Worker) register(ctx context.Context, log *slog.Logger) bool {
	for {
		err := w.beatOnce(ctx)
		if err == nil {
			return true
		}
		log.Warn("first heartbeat not written; retrying", slog.Any("error", err))
		select {
		case <-ctx.Done():
			return false
		case <-time.After(HeartbeatEvery):
		}
	}
}

// beat keeps beating until ctx ends. A beat that fails is logged and the
// next one tried.
func (w *Worker) beat(ctx context.Context, log *slog.Logger) {
	go func() {
		tick := time.NewTicker(HeartbeatEvery)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				if err := w.beatOnce(ctx); err != nil && ctx.Err() == nil {
					log.Warn("heartbeat not written", slog.Any("error", err))
					continue
				}
				w.releaseStrays(ctx, log)
			}
		}
	}()
}
