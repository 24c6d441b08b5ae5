package queue

import (
	"context"
	"time"
)

// requeueGenerations makes sure every running generation has a live task,
// once per Stale (and at once after a Redis loss): a generation whose task
// was lost with Redis, or that the API could not enqueue, goes on. The
// task id is the generation's, so a live task is left as it is.
func (d *Dispatcher) requeueGenerations(ctx context.Context) error {
	if time.Since(d.generationsAt) < d.cfg.Stale {
		return nil
	}
	ids, err := d.cfg.Store.RunningGenerations(ctx)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if err := d.cfg.Client.EnqueueGenerate(ctx, id); err != nil {
			return err
		}
	}
	d.generationsAt = time.Now()
	return nil
}
