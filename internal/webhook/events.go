package webhook

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"time"

	"github.com/puzzled/puzzled/api/wire"
	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/store"
)

// newEventID returns a random event id: "evt_" and 24 hex digits.
func newEventID() string {
	var b [12]byte
	_, _ = rand.Read(b[:]) // crypto/rand never fails on Linux
	return "evt_" + hex.EncodeToString(b[:])
}

// newEvent makes an event of type typ with data, created now: its body is
// what every attempt sends.
func newEvent(typ string, data any, now time.Time) (store.NewEvent, error) {
	raw, err := json.Marshal(data)
	if err != nil {
		return store.NewEvent{}, err
	}
	id := newEventID()
	body, err := json.Marshal(wire.Event{ID: id, Type: typ, CreatedAt: now.UTC().Truncate(time.Millisecond), Data: raw})
	if err != nil {
		return store.NewEvent{}, err
	}
	return store.NewEvent{ID: id, Type: typ, Body: body}, nil
}

// jobsFinishedEvent reports finished jobs of a batch.
func jobsFinishedEvent(jobs []store.FinishedJob, now time.Time) (store.NewEvent, error) {
	data := wire.JobsFinished{BatchID: jobs[0].BatchID, Jobs: make([]wire.FinishedJob, len(jobs))}
	for i, j := range jobs {
		data.Jobs[i] = wire.FinishedJob{JobID: j.JobID, Seq: j.Seq, LevelHash: j.LevelHash, Kind: j.Kind,
			State: jobtype.State(j.State), Cached: j.Cached, Error: j.Error}
		if j.Verdict != nil {
			data.Jobs[i].Verdict = *j.Verdict
		}
	}
	return newEvent(wire.EventBatchJobsFinished, data, now)
}

// batchEvent is a batch's final event: batch.canceled if it was canceled,
// batch.finished otherwise, with the batch's counts.
func batchEvent(b store.Batch, now time.Time) (store.NewEvent, error) {
	typ := wire.EventBatchFinished
	if b.CanceledAt != nil {
		typ = wire.EventBatchCanceled
	}
	// The fields of GET /v1/batches/{id} (api/towire.go maps them the same way).
	return newEvent(typ, wire.Batch{
		ID: b.ID, Total: b.Total, Priority: b.Priority, Labels: b.Labels, CreatedAt: b.CreatedAt,
		CanceledAt: b.CanceledAt, States: b.States, Verdicts: b.Verdicts, Cached: b.Cached, Done: b.Done,
		FinishedAt: b.FinishedAt, Kinds: b.Kinds,
	}, now)
}

// jobEvent is the final event of a job outside a batch: the job as
// GET /v1/jobs/{id} shows it, without the plan (GET …/solution has it).
func jobEvent(j store.Job, now time.Time) (store.NewEvent, error) {
	typ := wire.EventJobFinished
	if j.State == jobtype.Canceled {
		typ = wire.EventJobCanceled
	}
	out := wire.Job{
		ID: j.ID, LevelHash: j.LevelHash, Kind: j.Kind, State: j.State, Priority: j.Priority, Budget: j.Budget,
		Labels: j.Labels, Attempts: j.Attempts, MaxAttempts: j.MaxAttempts, Cached: j.Cached, Error: j.Error,
		CreatedAt: j.CreatedAt, StartedAt: j.StartedAt, FinishedAt: j.FinishedAt,
	}
	if r := j.Result; r != nil {
		res := r.Result
		res.Plan = nil
		out.Result = &wire.Result{Result: res, SolverVersion: r.SolverVersion, CreatedAt: r.CreatedAt}
	}
	return newEvent(typ, out, now)
}
