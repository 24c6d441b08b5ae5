package main

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/puzzled/puzzled/api/wire"
	"github.com/puzzled/puzzled/internal/bench"
	"github.com/puzzled/puzzled/internal/e2etest"
	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/solver"
)

// Issue 31, fair share: project A's big bulk batch of slow levels does not
// hold back project B's small one, submitted after it. Before bulk work
// was admitted by project, B's bundles queued behind every one of A's and
// B ended after A (bench-fair: 181 s instead of 8.6 s alone); now B ends
// while most of A still waits. A weight and a cap set over the API are
// what the scheduler reads.
func TestEndToEndFairShareBetweenProjects(t *testing.T) {
	t.Parallel()
	s := e2etest.StartStack(t, "PUZZLED_CONCURRENCY=4")
	c := checkedClient(t, s.URL)
	ctx := t.Context()
	for _, name := range []string{"team-a", "team-b"} {
		if _, err := c.CreateProject(ctx, wire.ProjectRequest{Name: name}); err != nil {
			t.Fatal(err)
		}
	}
	weight := 2
	if p, err := c.UpdateProject(ctx, "team-b", wire.ProjectShare{BulkWeight: &weight}); err != nil || p.BulkWeight != 2 {
		t.Fatalf("PATCH team-b: %+v, %v", p, err)
	}
	rng := rand.New(rand.NewPCG(31, uint64(time.Now().UnixNano())))
	opts := func(project string) jobtype.Options {
		return jobtype.Options{Priority: jobtype.Bulk, Project: project, Budget: solver.Budget{MaxMS: 100}}
	}
	// A: 2,000 levels of up to 100 ms on 4 slots, at least a minute's work
	// on this machine.
	const big, small = 2000, 40
	a, err := c.CreateBatch(ctx, mustSlowLevels(t, rng, big), opts("team-a"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _, _ = c.CancelBatch(t.Context(), a) }()
	waitRunning := func(id int64) {
		t.Helper()
		deadline := time.Now().Add(time.Minute)
		for {
			b, err := c.GetBatch(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if b.States[string(jobtype.Done)] > 0 {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("batch %d: nothing done after a minute: %+v", id, b)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	waitRunning(a)
	b, err := c.CreateBatch(ctx, mustSlowLevels(t, rng, small), opts("team-b"))
	if err != nil {
		t.Fatal(err)
	}
	bDone := waitBatch(t, c, b, 2*time.Minute)
	if bDone.States[string(jobtype.Done)] != small {
		t.Fatalf("B's batch ended as %+v", bDone)
	}
	aNow, err := c.GetBatch(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	// With A's bundles ahead of B's in one queue, B would end after the
	// last of A's 2,000.
	if done := aNow.States[string(jobtype.Done)]; done > big/2 {
		t.Fatalf("B's %d levels ended only after %d of A's %d: B waited behind A", small, done, big)
	}
	t.Logf("B's %d levels done while A had done %d of %d", small, aNow.States[string(jobtype.Done)], big)

	// A cap of 2 bulk tasks in flight: once what A had admitted drains,
	// no more than 2 of A's jobs run at once (a bundle runs one job at a
	// time), though 4 slots are free.
	capped := 2
	if p, err := c.UpdateProject(ctx, "team-a", wire.ProjectShare{BulkCap: &capped}); err != nil || p.BulkCap != 2 {
		t.Fatalf("PATCH team-a: %+v, %v", p, err)
	}
	time.Sleep(3 * time.Second) // A's jobs of 100 ms admitted before the cap end
	most := 0
	for range 40 {
		b, err := c.GetBatch(ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		most = max(most, b.States[string(jobtype.Running)])
		time.Sleep(50 * time.Millisecond)
	}
	if most > capped {
		t.Fatalf("A ran %d jobs at once under a cap of %d", most, capped)
	}
	if most == 0 {
		t.Fatal("A ran nothing under its cap")
	}
}

func mustSlowLevels(t *testing.T, rng *rand.Rand, n int) []json.RawMessage {
	t.Helper()
	levels, err := bench.SlowLevels(rng, n)
	if err != nil {
		t.Fatal(err)
	}
	return levels
}
