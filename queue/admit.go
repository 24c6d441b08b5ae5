package queue

import (
	"context"
	"log/slog"
	"time"

	"github.com/puzzled/puzzled/store"
)

// Fair share of bulk work between projects (docs/service.md, "Fair
// share"). asynq's bulk queue is one list served in order, so whatever is
// in it goes first: were a 100,000-level batch handed over whole, a
// project that submits 200 levels a minute later would wait for all of
// it. The dispatcher therefore hands bulk tasks over only as the workers
// take them — about aheadTime of work waits in Redis — and gives each
// free place to the project with the fewest bulk tasks running for its
// weight (share; store.AdmitBulk reads the demand and stamps what is
// admitted).

// aheadTime is how much bulk work, at the rate the workers take it, the
// dispatcher keeps waiting in Redis: enough that the workers never wait
// for the dispatcher between two refills, little enough that a project's
// first tasks start within about this long of being admitted.
const aheadTime = 100 * time.Millisecond

// minAhead and maxAhead bound how many bulk tasks wait in Redis. minAhead
// is what a fleet gets while the rate is not known yet (the rate grows
// with it: a refill comes as soon as half is taken).
const (
	minAhead = 4
	maxAhead = 2048
)

// admitPoll is how often a dispatcher looks at the bulk queue's length
// while bulk work waits for admission: a refill follows within about this
// long of the queue's falling to half.
const admitPoll = 10 * time.Millisecond

// admission is a dispatcher's view of the bulk queue.
type admission struct {
	// rate is how many bulk tasks a second the workers take (processed,
	// smoothed), measured from asynq's count since at with processed then.
	rate      float64
	at        time.Time
	processed int64
	// boost is a floor under ahead for a fleet faster than its rate shows:
	// it doubles whenever the queue is found empty while work waits and
	// the workers take a task or more every two looks (they may have
	// been idle, taking no more than they were given), and fades by a
	// tenth at each measurement of the rate. Slower work does not need it:
	// a look finds the queue short before it is empty.
	boost int
	// backlog: at its last look, bulk work was waiting for admission.
	backlog bool
}

// observe takes a look at the bulk queue: pending tasks, and asynq's
// count of processed bulk tasks.
func (a *admission) observe(now time.Time, pending, processed int64) {
	if pending == 0 && a.backlog && a.rate*admitPoll.Seconds() >= 0.5 {
		a.boost = min(2*a.ahead(), maxAhead)
	}
	if a.at.IsZero() || processed < a.processed { // first look, or Redis lost its counts
		a.at, a.processed = now, processed
		return
	}
	dt := now.Sub(a.at)
	if dt < rateEvery {
		return
	}
	// A rising rate is taken at once, a falling one halfway: a burst of
	// work should not wait for the average to catch up.
	r := float64(processed-a.processed) / dt.Seconds()
	a.rate = max(r, (a.rate+r)/2)
	a.boost = a.boost * 9 / 10
	a.at, a.processed = now, processed
}

// rateEvery is the shortest time over which the rate is measured.
const rateEvery = 100 * time.Millisecond

// ahead is how many bulk tasks should wait in Redis.
func (a *admission) ahead() int {
	return min(max(int(a.rate*aheadTime.Seconds()), a.boost, minAhead), maxAhead)
}

// needsRoom reports whether the bulk queue holds too much for admission:
// more than half of ahead (a refill then is too small to be worth a round).
func (a *admission) needsRoom(pending int64) bool { return pending > int64(a.ahead()/2) }

// admit admits bulk work into the room the bulk queue has. It returns
// what to hand to asynq, stamped as handed over.
func (d *Dispatcher) admit(ctx context.Context) ([]store.LiveJob, []store.LiveBatch, error) {
	pending, processed, err := d.cfg.Client.BulkQueue(ctx)
	if err != nil {
		return nil, nil, err
	}
	d.adm.observe(time.Now(), pending, processed)
	if d.adm.needsRoom(pending) {
		return nil, nil, nil
	}
	room := d.adm.ahead() - int(pending)
	d.adm.backlog = false // share sets it when work waits
	jobs, batches, ok, err := d.cfg.Store.AdmitBulk(ctx, d.cfg.Owner.ID, func(demand []store.BulkDemand) map[int64]int {
		weights := effectiveWeights(demand)
		d.fair.owe(time.Now(), demand, weights)
		given := share(demand, room, weights, d.fair.credit)
		waiting, admitted := 0, 0
		for _, p := range demand {
			waiting += p.Waiting
			admitted += given[p.Project]
		}
		// Work left waiting while room was given out: look again as soon
		// as there is room. Nothing given (every waiting project at its
		// cap): the next whole round looks again.
		d.adm.backlog = waiting > admitted && admitted > 0
		return given
	})
	if err != nil {
		return nil, nil, err
	}
	if !ok {
		d.adm.backlog = true // another dispatcher is admitting; look again soon
	}
	if len(jobs)+len(batches) > 0 {
		d.cfg.Logger.Debug("bulk work admitted", slog.Int("jobs", len(jobs)), slog.Int("batches", len(batches)),
			slog.Int("room", room), slog.Float64("rate", d.adm.rate))
	}
	return jobs, batches, nil
}

// admitRound admits bulk work and hands it to asynq: a round that does
// nothing else.
func (d *Dispatcher) admitRound(ctx context.Context) (int, error) {
	jobs, batches, err := d.admit(ctx)
	if err != nil || len(jobs)+len(batches) == 0 {
		return 0, err
	}
	return len(jobs) + len(batches), d.hand(ctx, jobs, batches)
}

// waitForRoom waits, up to d.cfg.Poll, until the bulk queue has room for
// admission, looking every admitPoll.
func (d *Dispatcher) waitForRoom(ctx context.Context) {
	deadline := time.Now().Add(d.cfg.Poll)
	for time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return
		case <-time.After(admitPoll):
		}
		pending, processed, err := d.cfg.Client.BulkQueue(ctx)
		if err != nil {
			return
		}
		d.adm.observe(time.Now(), pending, processed)
		if !d.adm.needsRoom(pending) {
			return
		}
	}
}

// share divides room bulk tasks between projects: each goes to the
// project with the fewest tasks running (counting those given here as if
// they ran), less its credit, for its effective weight (effectiveWeights),
// among those with tasks waiting and under their cap (on tasks in flight).
// Ties go to the project with less waiting (a small batch ahead of a big
// one), then to the older project. It is max-min fairness over the
// workers' slots: two projects with work enough for both end up with the
// slots in the ratio of their weights, whichever came first, and the
// credit (fairShare) makes that ratio hold over time where the slots do
// not divide in it (8 slots in the ratio 4:3). Running, not in flight: a
// newcomer's first tasks wait in Redis behind the others' (up to
// aheadTime of work), and counting them as running would leave it short
// of its share until they start.
func share(demand []store.BulkDemand, room int, weights []float64, credit map[int64]float64) map[int64]int {
	given := make(map[int64]int, len(demand))
	for ; room > 0; room-- {
		best, bestLoad := -1, 0.0
		for i, p := range demand {
			g := given[p.Project]
			if g >= p.Waiting || (p.Cap > 0 && p.InFlight+g >= p.Cap) {
				continue
			}
			load := (float64(p.Running+g) - credit[p.Project]) / weights[i]
			if best < 0 || load < bestLoad || (load == bestLoad && before(p, g, demand[best], given[demand[best].Project])) {
				best, bestLoad = i, load
			}
		}
		if best < 0 {
			break
		}
		given[demand[best].Project]++
	}
	return given
}

// before breaks a tie of share: a with ga given so far before b with gb.
func before(a store.BulkDemand, ga int, b store.BulkDemand, gb int) bool {
	if a.Waiting-ga != b.Waiting-gb {
		return a.Waiting-ga < b.Waiting-gb
	}
	return a.Project < b.Project
}

// smallLean is how much more than its weight the project with the least
// bulk work waiting weighs, when two or more have work waiting. With equal
// weights, half the slots would make a small batch beside a big one take
// twice its time alone, however fair: the lean gives it 4 slots in 7
// (1.75× its time alone, plus what it loses at its start), and the big
// batch keeps 3 in 7 (43 %). A quarter (5 in 9) left the small batch at
// 1.85× its time alone at the median and over 2× in one round in ten
// (docs/benchmarks.md, bench-fair). Finishing small batches first is also
// what shortens the wait of the most people.
const smallLean = 1.0 / 3

// effectiveWeights are the projects' weights for share: bulk_weight, and
// smallLean more for the one project with the least work waiting.
func effectiveWeights(demand []store.BulkDemand) []float64 {
	w := make([]float64, len(demand))
	smallest, ties := -1, 0
	for i, p := range demand {
		w[i] = float64(max(p.Weight, 1))
		switch {
		case smallest < 0 || p.Waiting < demand[smallest].Waiting:
			smallest, ties = i, 1
		case p.Waiting == demand[smallest].Waiting:
			ties++
		}
	}
	if len(demand) > 1 && ties == 1 {
		w[smallest] *= 1 + smallLean
	}
	return w
}

// fairShare is a dispatcher's memory of how the bulk slots were shared:
// each competing project's credit, the slots of running work it is owed
// (positive) or has had beyond its share (negative), integrated over time
// from the running counts it sees at each admission. Slots are whole: 8
// slots shared 4:3 would stay at 5 and 3 by running counts alone, since a
// slot freed by one project goes back to it. With the credit, a project
// below its share gains a slot once it is owed enough, gives it back once
// it has had as much beyond its share, and its running count averages its
// share over time. The credit is bounded (±maxCredit slots), so that it
// stays a correction, and dropped when a project has nothing waiting, so
// that no one saves it up for later. Each dispatcher keeps its own: the
// one that admits uses what it saw.
type fairShare struct {
	credit map[int64]float64
	at     time.Time
}

// creditTau: a project short of its share by one slot for creditTau is
// owed one slot. maxCredit bounds the credit either way.
const (
	creditTau = time.Second
	maxCredit = 1.0
)

// owe adds to each competing project's credit how much its share of the
// running slots (by weights) exceeded its running count since the last
// look (up to a second of it).
func (f *fairShare) owe(now time.Time, demand []store.BulkDemand, weights []float64) {
	dt := 0.0
	if !f.at.IsZero() {
		dt = min(now.Sub(f.at), time.Second).Seconds()
	}
	f.at = now
	running, sum := 0.0, 0.0
	for i, p := range demand {
		running += float64(p.Running)
		sum += weights[i]
	}
	credit := make(map[int64]float64, len(demand))
	for i, p := range demand {
		fair := running * weights[i] / sum
		c := f.credit[p.Project] + (fair-float64(p.Running))*dt/creditTau.Seconds()
		credit[p.Project] = max(-maxCredit, min(maxCredit, c))
	}
	f.credit = credit
}
