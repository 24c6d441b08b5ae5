package wire

// JobState is where a job is in its life:
// queued → running → done | failed | canceled (docs/architecture.md).
type JobState string

const (
	Queued   JobState = "queued"   // stored, waiting for a worker
	Running  JobState = "running"  // a worker is solving it
	Done     JobState = "done"     // it has a result (of any verdict)
	Failed   JobState = "failed"   // it ran out of attempts, or its level cannot run
	Canceled JobState = "canceled" // a client canceled it before it finished
)

// Live reports whether the job may still change: queued or running.
func (s JobState) Live() bool { return s == Queued || s == Running }

// Final reports whether the job is finished: done, failed or canceled.
func (s JobState) Final() bool { return s == Done || s == Failed || s == Canceled }
