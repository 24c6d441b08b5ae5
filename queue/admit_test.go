package queue

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/puzzled/puzzled/store"
)

func TestShare(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		demand []store.BulkDemand
		room   int
		want   map[int64]int
		credit map[int64]float64
	}{
		{"one project takes all the room it can use",
			[]store.BulkDemand{{Project: 1, Weight: 1, InFlight: 30, Waiting: 5000}}, 8, map[int64]int{1: 8}, nil},
		{"no more than waits",
			[]store.BulkDemand{{Project: 1, Weight: 1, Waiting: 3}}, 8, map[int64]int{1: 3}, nil},
		{"a newcomer fills up to the other's running first",
			[]store.BulkDemand{{Project: 1, Weight: 1, InFlight: 14, Running: 10, Waiting: 5000}, {Project: 2, Weight: 1, Waiting: 200}},
			8, map[int64]int{2: 8}, nil},
		{"then the room is split by weight, the smaller backlog weighing a third more",
			[]store.BulkDemand{{Project: 1, Weight: 1, InFlight: 12, Running: 10, Waiting: 5000}, {Project: 2, Weight: 1, InFlight: 9, Running: 6, Waiting: 200}},
			10, map[int64]int{1: 1, 2: 9}, nil},
		{"equal weights, from nothing: 4 for the smaller backlog, 3 for the bigger",
			[]store.BulkDemand{{Project: 1, Weight: 1, Waiting: 5000}, {Project: 2, Weight: 1, Waiting: 100}},
			7, map[int64]int{1: 3, 2: 4}, nil},
		{"a slot freed by the bigger backlog goes back to it at 3 and 5",
			[]store.BulkDemand{{Project: 1, Weight: 1, Running: 2, Waiting: 5000}, {Project: 2, Weight: 1, Running: 5, Waiting: 100}},
			1, map[int64]int{1: 1}, nil},
		{"at 3 and 4, a freed slot goes to the smaller backlog",
			[]store.BulkDemand{{Project: 1, Weight: 1, Running: 3, Waiting: 5000}, {Project: 2, Weight: 1, Running: 4, Waiting: 100}},
			1, map[int64]int{2: 1}, nil},
		{"unless the other is owed enough",
			[]store.BulkDemand{{Project: 1, Weight: 1, Running: 3, Waiting: 5000}, {Project: 2, Weight: 1, Running: 4, Waiting: 100}},
			1, map[int64]int{1: 1}, map[int64]float64{1: 0.3, 2: -0.3}},
		{"by weight",
			[]store.BulkDemand{{Project: 1, Weight: 1, Waiting: 100}, {Project: 2, Weight: 3, Waiting: 100}},
			8, map[int64]int{1: 2, 2: 6}, nil},
		{"a cap on tasks in flight holds a project back and its room goes to others",
			[]store.BulkDemand{{Project: 1, Weight: 1, Cap: 4, InFlight: 2, Running: 1, Waiting: 100}, {Project: 2, Weight: 1, InFlight: 10, Running: 10, Waiting: 100}},
			8, map[int64]int{1: 2, 2: 6}, nil},
		{"ties go to the smaller backlog",
			[]store.BulkDemand{{Project: 1, Weight: 1, Waiting: 100}, {Project: 2, Weight: 1, Waiting: 10}},
			1, map[int64]int{2: 1}, nil},
		{"no room", []store.BulkDemand{{Project: 1, Weight: 1, Waiting: 100}}, 0, map[int64]int{}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := share(c.demand, c.room, effectiveWeights(c.demand), c.credit); fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("share = %v, want %v", got, c.want)
			}
		})
	}
}

// Two projects with equal weights and work enough for both on 8 slots:
// over time the smaller backlog runs 4 tasks in 7 (32/7 slots), the bigger
// 3 in 7, though the slots do not divide so. Without the credit they stay
// at 5 and 3, which the test checks too, so that it shows the credit at
// work. Tasks last 200 ms; A holds every slot when B comes.
func TestFairShareHoldsTheRatioOverTime(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name     string
		credit   bool
		min, max float64
	}{
		{"with the credit", true, 32.0/7 - 0.1, 32.0/7 + 0.1},
		{"without", false, 5, 5},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := simulateShare(c.credit); got < c.min || got > c.max {
				t.Errorf("B's average running %.3f, want %.3f–%.3f", got, c.min, c.max)
			}
		})
	}
}

// simulateShare runs share (and fairShare, if credit) over 60 s of 10 ms
// ticks and returns B's average running count after the first 10 s.
func simulateShare(credit bool) float64 {
	const slots, ticks, taskTicks, warmup = 8, 6000, 20, 1000
	type task struct {
		project int64
		ends    int
	}
	var running []task
	for i := range slots { // A's tasks end one at a time
		running = append(running, task{1, i * taskTicks / slots})
	}
	var f fairShare
	now := time.Unix(0, 0)
	sumB := 0
	for k := range ticks {
		now = now.Add(10 * time.Millisecond)
		running = slices.DeleteFunc(running, func(t task) bool { return t.ends <= k })
		counts := map[int64]int{}
		for _, t := range running {
			counts[t.project]++
		}
		demand := []store.BulkDemand{
			{Project: 1, Weight: 1, Running: counts[1], InFlight: counts[1], Waiting: 5000},
			{Project: 2, Weight: 1, Running: counts[2], InFlight: counts[2], Waiting: 1000},
		}
		w := effectiveWeights(demand)
		var owed map[int64]float64
		if credit {
			f.owe(now, demand, w)
			owed = f.credit
		}
		for p, n := range share(demand, slots-len(running), w, owed) {
			for range n {
				running = append(running, task{p, k + taskTicks})
				counts[p]++
			}
		}
		if k >= warmup {
			sumB += counts[2]
		}
	}
	return float64(sumB) / float64(ticks-warmup)
}

func TestAdmissionRate(t *testing.T) {
	t.Parallel()
	var a admission
	if a.ahead() != minAhead {
		t.Fatalf("ahead before any look = %d, want %d", a.ahead(), minAhead)
	}
	t0 := time.Unix(1000, 0)
	a.observe(t0, 10, 100)
	a.observe(t0.Add(time.Second), 10, 500)           // 400 a second, taken at once
	a.observe(t0.Add(2*time.Second), 10, 700)         // 200: halfway down
	a.observe(t0.Add(2050*time.Millisecond), 10, 900) // too soon to measure
	if a.rate != 300 || a.ahead() != 30 {
		t.Fatalf("rate %v, ahead %d; want 300 and 30", a.rate, a.ahead())
	}
	a.observe(t0.Add(3*time.Second), 10, 0) // Redis lost its counts
	a.observe(t0.Add(4*time.Second), 10, 0)
	if a.rate != 150 {
		t.Fatalf("rate after a reset %v, want 150", a.rate)
	}
	if !a.needsRoom(int64(a.ahead()/2+1)) || a.needsRoom(int64(a.ahead()/2)) {
		t.Fatal("needsRoom: want room once half of ahead is taken")
	}
	// An empty queue while work waits doubles ahead when the workers
	// take a task or more every two looks (150 a second: 1.5 a look);
	// the boost fades.
	a.backlog = true
	a.observe(t0.Add(4050*time.Millisecond), 0, 0)
	if a.ahead() != 30 {
		t.Fatalf("ahead after an empty look = %d, want 30 (twice 15)", a.ahead())
	}
	a.observe(t0.Add(5*time.Second), 5, 0)
	if a.boost != 27 {
		t.Fatalf("boost after a measurement = %d, want 27", a.boost)
	}
	// Slow work (40 a second: 0.4 a look) gets none.
	slow := admission{rate: 40, backlog: true}
	slow.observe(t0, 0, 0)
	if slow.boost != 0 || slow.ahead() != minAhead {
		t.Fatalf("slow work: boost %d, ahead %d; want 0 and %d", slow.boost, slow.ahead(), minAhead)
	}
}
