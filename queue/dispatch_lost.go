package queue

import (
	"context"
	"log/slog"
	"time"

	"github.com/puzzled/puzzled/store"
)

// lostEvery is how often a dispatcher looks for lost tasks: three small
// Redis reads, and a PostgreSQL statement only when one is found.
const lostEvery = time.Second

// recoverLost sends again the jobs of tasks that a worker took from Redis
// and lost before it wrote anything to PostgreSQL: it was killed, or cut
// off from both servers, between taking a task and starting its jobs. No
// takeover finds such jobs (nothing names the dead worker), and asynq
// gives the task back only a minute or two later. A task is lost once its
// lease has gone LostAfter without being extended (Client.LostTasks), and
// only while this dispatcher has itself reached Redis for that long: after
// a Redis outage every lease is old until the servers' next heartbeats.
// Only a worker's dispatcher does it, as only it takes over dead workers'
// jobs.
func (d *Dispatcher) recoverLost(ctx context.Context) error {
	if d.cfg.Owner.ID == "" || time.Since(d.lostAt) < lostEvery || time.Since(d.redisSince) < LostAfter {
		return nil
	}
	d.lostAt = time.Now()
	tasks, err := d.cfg.Client.LostTasks(ctx, LostAfter)
	if err != nil || len(tasks) == 0 {
		return err
	}
	var (
		jobs    []store.LostJob
		bundles []store.BundleKey
	)
	for _, p := range tasks {
		if p.IsBundle() {
			first, _ := p.Seqs()
			bundles = append(bundles, store.BundleKey{BatchID: p.BatchID, FirstSeq: first})
		} else {
			jobs = append(jobs, store.LostJob{ID: p.JobID, Recoveries: p.Recovery})
		}
	}
	ids, err := d.cfg.Store.RecoverLost(ctx, jobs, bundles)
	if err != nil {
		return err
	}
	// A lost task stays in asynq's lease set until asynq's recoverer
	// takes it back, and is found at every look till then: only the
	// look that sent its jobs again says so.
	if len(ids) > 0 {
		d.cfg.Logger.Warn("jobs of tasks lost with their worker (taken from Redis, never started) sent again",
			slog.Int("jobs", len(ids)), slog.Any("job_ids", ids[:min(len(ids), 10)]))
	}
	return nil
}
