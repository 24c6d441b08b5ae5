package queue

import (
	"fmt"
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
	}{
		{"one project takes all the room it can use",
			[]store.BulkDemand{{Project: 1, Weight: 1, InFlight: 30, Waiting: 5000}}, 8, map[int64]int{1: 8}},
		{"no more than waits",
			[]store.BulkDemand{{Project: 1, Weight: 1, Waiting: 3}}, 8, map[int64]int{1: 3}},
		{"a newcomer fills up to the other's running first",
			[]store.BulkDemand{{Project: 1, Weight: 1, InFlight: 14, Running: 10, Waiting: 5000}, {Project: 2, Weight: 1, Waiting: 200}},
			8, map[int64]int{2: 8}},
		{"then the room is split evenly",
			[]store.BulkDemand{{Project: 1, Weight: 1, InFlight: 12, Running: 10, Waiting: 5000}, {Project: 2, Weight: 1, InFlight: 9, Running: 6, Waiting: 200}},
			10, map[int64]int{1: 3, 2: 7}},
		{"by weight",
			[]store.BulkDemand{{Project: 1, Weight: 1, Waiting: 100}, {Project: 2, Weight: 3, Waiting: 100}},
			8, map[int64]int{1: 2, 2: 6}},
		{"a cap on tasks in flight holds a project back and its room goes to others",
			[]store.BulkDemand{{Project: 1, Weight: 1, Cap: 4, InFlight: 2, Running: 1, Waiting: 100}, {Project: 2, Weight: 1, InFlight: 10, Running: 10, Waiting: 100}},
			8, map[int64]int{1: 2, 2: 6}},
		{"ties go to the smaller backlog",
			[]store.BulkDemand{{Project: 1, Weight: 1, Waiting: 100}, {Project: 2, Weight: 1, Waiting: 10}},
			1, map[int64]int{2: 1}},
		{"no room", []store.BulkDemand{{Project: 1, Weight: 1, Waiting: 100}}, 0, map[int64]int{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := share(c.demand, c.room); fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("share = %v, want %v", got, c.want)
			}
		})
	}
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
