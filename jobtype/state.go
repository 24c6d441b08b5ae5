package jobtype

// State is where a job is in its life:
// queued → running → done | failed | canceled (docs/architecture.md).
type State string

const (
	Queued   State = "queued"   // stored, waiting for a worker
	Running  State = "running"  // a worker is solving it
	Done     State = "done"     // it has a result (of any verdict)
	Failed   State = "failed"   // it ran out of attempts, or its level cannot run
	Canceled State = "canceled" // a client canceled it before it finished
)

// Live reports whether the job may still change: queued or running.
func (s State) Live() bool { return s == Queued || s == Running }

// Final reports whether the job is finished: done, failed or canceled.
func (s State) Final() bool { return s == Done || s == Failed || s == Canceled }
