package twoends

import (
	"context"
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/puzzled/puzzled/solver"
)

// TestResumeAtRandomPoints interrupts solves with a small node budget at
// random points, resumes from the last checkpoint (several times), and
// compares with an uninterrupted run.
func TestResumeAtRandomPoints(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(21, 22))
	sizes := []int{1, 2, 7, 300, 5000, LineLimit + 5000} // the last omits the line
	total := 0
	defer func() {
		if total < 60 {
			t.Errorf("only %d resumes in all: the budget slices are too large", total)
		}
	}()
	for it := 0; it < 60; it++ {
		n := sizes[it%len(sizes)]
		l := mustLevel(t, randomValues(r, n, -1000, 1000))
		want := solveVerified(t, l)
		got, resumes := solveInterrupted(t, l, r)
		total += resumes
		if got.Verdict != want.Verdict || *got.Value != *want.Value || string(got.Plan) != string(want.Plan) ||
			!reflect.DeepEqual(got.Details, want.Details) {
			t.Fatalf("n=%d after %d resumes: %+v, want %+v", n, resumes, got, want)
		}
		if resumes > 0 && (!got.Stats.Resumed || got.Stats.Nodes < want.Stats.Nodes) {
			t.Fatalf("n=%d: stats %+v after %d resumes, uninterrupted %+v", n, got.Stats, resumes, want.Stats)
		}
	}
}

// solveInterrupted solves l in slices of a random node budget, resuming
// each time from the last checkpoint, and verifies the final result.
func solveInterrupted(t *testing.T, l *Level, r *rand.Rand) (solver.Result, int) {
	t.Helper()
	k := New()
	var blob []byte
	var atCheckpoint int64 // nodes recorded in blob
	for resumes := 0; ; resumes++ {
		var last []byte
		opts := solver.Options{
			Budget:          solver.Budget{MaxNodes: atCheckpoint + 1 + r.Int64N(int64(len(l.values))+1)},
			CheckpointEvery: 1,
			Checkpoint:      func(b []byte) { last = append(last[:0], b...) },
			Resume:          blob,
		}
		res, err := k.Solve(context.Background(), l, opts)
		if err != nil {
			t.Fatalf("Solve: %v", err)
		}
		if err := k.Verify(l, res); err != nil {
			t.Fatalf("Verify %+v: %v", res, err)
		}
		if blob != nil && (!res.Stats.Resumed || res.Stats.Nodes < atCheckpoint) {
			t.Fatalf("resumed at %d nodes, stats %+v", atCheckpoint, res.Stats)
		}
		if res.Verdict == solver.Solved {
			return res, resumes
		}
		if res.Verdict != solver.Unknown || last == nil {
			t.Fatalf("interrupted solve: verdict %s, checkpoint %v", res.Verdict, last != nil)
		}
		blob = last
		atCheckpoint = res.Stats.Nodes
		if resumes > 10*len(l.values)+10 {
			t.Fatalf("no progress after %d resumes", resumes)
		}
	}
}

// TestCancelInCheckpoint cancels ctx from the checkpoint hook, then resumes
// from the blob the hook captured.
func TestCancelInCheckpoint(t *testing.T) {
	t.Parallel()
	l := mustLevel(t, benchValues(3000))
	want := solveVerified(t, l)
	ctx, cancel := context.WithCancel(context.Background())
	var blob []byte
	calls := 0
	opts := solver.Options{CheckpointEvery: 1, Checkpoint: func(b []byte) {
		calls++
		blob = append(blob[:0], b...)
		if calls == 1500 {
			cancel()
		}
	}}
	res, err := New().Solve(ctx, l, opts)
	if !errors.Is(err, context.Canceled) || res.Verdict != solver.Unknown {
		t.Fatalf("cancelled solve: %s, %v", res.Verdict, err)
	}
	if err := New().Verify(l, res); err != nil {
		t.Fatalf("Verify of the partial result: %v", err)
	}
	got, err := New().Solve(context.Background(), l, solver.Options{Resume: blob})
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Plan) != string(want.Plan) || *got.Value != *want.Value || !got.Stats.Resumed || got.Stats.Nodes < res.Stats.Nodes-1024 {
		t.Fatalf("resumed: %+v, want plan %s; cancelled at %+v", got, want.Plan, res.Stats)
	}
}

func TestCancelledContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := New().Solve(ctx, mustLevel(t, benchValues(5000)), solver.Options{})
	if !errors.Is(err, context.Canceled) || res.Verdict != solver.Unknown || res.Value != nil {
		t.Fatalf("got %+v, %v; want unknown and context.Canceled", res, err)
	}
}

func TestNodeBudget(t *testing.T) {
	t.Parallel()
	res, err := New().Solve(context.Background(), mustLevel(t, benchValues(100)), solver.Options{Budget: solver.Budget{MaxNodes: 150}})
	if err != nil || res.Verdict != solver.Unknown || res.Stats.Nodes != 150 {
		t.Fatalf("got %+v, %v; want unknown after 150 nodes", res, err)
	}
}

func TestBadCheckpoint(t *testing.T) {
	t.Parallel()
	l := mustLevel(t, []int64{3, 1, 2})
	envelope := func(p string) []byte { return append(make([]byte, 20), p...) }
	for _, p := range []string{"", "XX\x01\x00", payloadMagic + "\x07", payloadMagic + "\x00\x09", payloadMagic + "\x00\x01\x02\x00"} {
		b := envelope(p)
		copy(b, "PZC1")
		if _, err := New().Solve(context.Background(), l, solver.Options{Resume: b}); !errors.Is(err, ErrBadCheckpoint) {
			t.Errorf("payload %q: %v, want ErrBadCheckpoint", p, err)
		}
	}
}
