package queue

import (
	"testing"

	"github.com/hibiken/asynq"

	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/store"
)

func TestCarrierTaskIDAndQueue(t *testing.T) {
	for _, c := range []struct {
		name      string
		job       store.LiveJob
		taskID    string
		queue     string
		bundle    bool
		from, end int32
	}{
		{"job outside a batch", store.LiveJob{ID: 7, Priority: jobtype.Interactive}, "job:7", Interactive, false, 0, 0},
		{"job in a bundle", store.LiveJob{ID: 9, Priority: jobtype.Bulk, BatchID: 3, Seq: 130}, "batch:3:2", Bulk, true, 128, 192},
		{"first bundle", store.LiveJob{ID: 9, Priority: jobtype.Bulk, BatchID: 3, Seq: 63}, "batch:3:0", Bulk, true, 0, 64},
		{"solo job of a batch", store.LiveJob{ID: 9, Priority: jobtype.Bulk, BatchID: 3, Seq: 130, Solo: true}, "job:9", Bulk, false, 0, 0},
		{"handed back once", store.LiveJob{ID: 9, Priority: jobtype.Bulk, Recoveries: 1}, "job:9:r1", Resumed, false, 0, 0},
		// A recovered job of a batch leaves its bundle even if solo is unset.
		{"recovered bundle job", store.LiveJob{ID: 9, Priority: jobtype.Bulk, BatchID: 3, Seq: 5, Recoveries: 2}, "job:9:r2", Resumed, false, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := Carrier(c.job)
			if p.TaskID() != c.taskID || QueueOf(c.job) != c.queue || p.IsBundle() != c.bundle {
				t.Fatalf("carrier %+v: task %q queue %q bundle %v; want %q %q %v", p, p.TaskID(), QueueOf(c.job), p.IsBundle(),
					c.taskID, c.queue, c.bundle)
			}
			if from, end := p.Seqs(); c.bundle && (from != c.from || end != c.end || c.job.Seq < from || c.job.Seq >= end) {
				t.Fatalf("bundle seqs [%d, %d), want [%d, %d)", from, end, c.from, c.end)
			}
			if parsed, ok := ParseTaskID(p.TaskID()); !ok || parsed != p {
				t.Fatalf("ParseTaskID(%q) = %+v, %v; want %+v", p.TaskID(), parsed, ok, p)
			}
			back, err := PayloadOf(asynq.NewTask(TypeSolve, mustJSON(t, p)))
			if err != nil || back != p {
				t.Fatalf("payload round trip: %+v, %v", back, err)
			}
		})
	}
}

func TestPayloadOfRejectsBadPayloads(t *testing.T) {
	for _, body := range []string{
		`{}`, `not json`, `{"job_id":-1}`, `{"job_id":1,"batch_id":2}`, `{"job_id":1,"bundle":3}`,
		`{"batch_id":2,"bundle":-1}`, `{"batch_id":2,"recovery":1}`, `{"job_id":1,"recovery":-1}`,
	} {
		if p, err := PayloadOf(asynq.NewTask(TypeSolve, []byte(body))); err == nil {
			t.Errorf("%s accepted as %+v", body, p)
		}
	}
}

// tasksOf groups a page of claimed jobs into one task per carrier, with
// the largest budget of its jobs, in the queue of the first.
func TestTasksOfGroupsJobsByCarrier(t *testing.T) {
	jobs := []store.LiveJob{
		{ID: 1, Priority: jobtype.Bulk, BatchID: 5, Seq: 0, MaxMS: 100},
		{ID: 2, Priority: jobtype.Bulk, BatchID: 5, Seq: 1, MaxMS: 0}, // the kind's default, at most solver.DefaultMaxMS
		{ID: 3, Priority: jobtype.Bulk, BatchID: 5, Seq: 64, MaxMS: 10},
		{ID: 4, Priority: jobtype.Interactive, MaxMS: 20},
		{ID: 5, Priority: jobtype.Bulk, BatchID: 5, Seq: 2, Recoveries: 1, MaxMS: 30},
	}
	got := tasksOf(jobs)
	want := []task{
		{Payload{BatchID: 5, Bundle: 0}, Bulk, solver.DefaultMaxMS},
		{Payload{BatchID: 5, Bundle: 1}, Bulk, 10},
		{Payload{JobID: 4}, Interactive, 20},
		{Payload{JobID: 5, Recovery: 1}, Resumed, 30},
	}
	if len(got) != len(want) {
		t.Fatalf("tasks = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("task %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestQueuesPutResumedWorkFirst(t *testing.T) {
	if !(Queues[Resumed] > Queues[Interactive] && Queues[Interactive] > Queues[Bulk]) {
		t.Fatalf("queue priorities %v: want resumed > interactive > bulk", Queues)
	}
	if jobtype.Priority(Resumed).Valid() {
		t.Fatal("resumed is not a priority a client may ask for")
	}
}

func solvedResult() solver.Result {
	return solver.Result{Verdict: solver.Solved, Value: solver.Int64(1), Optimal: true, Plan: []byte(`"LR"`)}
}

// Ids of other tasks, or malformed ones, are no solve task's.
func TestParseTaskIDRefusesOtherIDs(t *testing.T) {
	for _, id := range []string{"", "generate:4", "webhook:evt_1:2", "job:", "job:0", "job:-3", "job:07", "job:7:r0",
		"job:7:1", "job:7:r", "job:7:r1:x", "batch:3", "batch:0:1", "batch:3:-1", "batch:3:1:r1", "batch:3:99999999999"} {
		if p, ok := ParseTaskID(id); ok {
			t.Errorf("ParseTaskID(%q) = %+v; want no solve task", id, p)
		}
	}
}
