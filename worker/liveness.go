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
// within about DeadAfter plus a dispatcher round.
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

// beat registers the worker and keeps beating until ctx ends. A beat that
// fails is logged and the next one tried; the first must succeed.
func (w *Worker) beat(ctx context.Context, log *slog.Logger) error {
	host, _ := os.Hostname()
	once := func() error {
		bctx, cancel := context.WithTimeout(ctx, DeadAfter)
		defer cancel()
		return w.cfg.Store.Beat(bctx, w.owner.ID, host, os.Getpid(), DeadAfter/2)
	}
	if err := once(); err != nil {
		return err
	}
	go func() {
		tick := time.NewTicker(HeartbeatEvery)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				if err := once(); err != nil && ctx.Err() == nil {
					log.Warn("heartbeat not written", slog.Any("error", err))
					continue
				}
				w.releaseStrays(ctx, log)
			}
		}
	}()
	return nil
}
