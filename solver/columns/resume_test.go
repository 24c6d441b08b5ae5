package columns

import (
	"context"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/puzzled/puzzled/solver"
)

// interruptedSolve runs k on l in slices (a node budget that grows by
// minStep plus a random step each time), resuming from the last
// checkpoint, until a run finishes. minStep must cover the work a resume
// repeats (the path's nodes, the beam's current piece). Checkpoints are due at every safe
// point. It returns the final result and the number of interruptions.
func interruptedSolve(t *testing.T, k solver.Kind, l *Level, rng *rand.Rand, minStep, step int64) (solver.Result, int) {
	t.Helper()
	var blob []byte
	var nodesAt int64
	for stops := 0; ; stops++ {
		var last []byte
		budget := nodesAt + minStep + rng.Int64N(step)
		opts := solver.Options{
			Budget:          solver.Budget{MaxNodes: budget},
			CheckpointEvery: time.Nanosecond,
			Checkpoint:      func(b []byte) { last = append([]byte{}, b...) },
			Resume:          blob,
		}
		res, err := k.Solve(context.Background(), l, opts)
		if err != nil {
			t.Fatalf("%s: %v", l.Canonical(), err)
		}
		if err := k.Verify(l, res); err != nil {
			t.Fatalf("%s: verify: %v", l.Canonical(), err)
		}
		if blob != nil && (!res.Stats.Resumed || res.Stats.Nodes < nodesAt) {
			t.Fatalf("resumed run: resumed %v nodes %d, checkpoint had %d", res.Stats.Resumed, res.Stats.Nodes, nodesAt)
		}
		if res.Stats.Nodes < budget {
			return res, stops
		}
		if last == nil {
			t.Fatalf("stopped without a checkpoint")
		}
		blob = last
		nodesAt = int64(binary.LittleEndian.Uint64(blob[4:]))
	}
}

func sameResult(t *testing.T, l *Level, a, b solver.Result) {
	t.Helper()
	if a.Verdict != b.Verdict || *a.Value != *b.Value || string(a.Plan) != string(b.Plan) ||
		a.Optimal != b.Optimal || a.Proof != b.Proof || !reflect.DeepEqual(a.Details, b.Details) {
		t.Fatalf("%s:\nresumed %s %d %s %v\nstraight %s %d %s %v", l.Canonical(),
			a.Verdict, *a.Value, a.Plan, a.Details, b.Verdict, *b.Value, b.Plan, b.Details)
	}
}

// TestResumeExact interrupts the exact search of 40 levels (10 per goal)
// many times and checks that the result equals an uninterrupted run.
func TestResumeExact(t *testing.T) {
	k := New()
	rng := rand.New(rand.NewPCG(11, 12))
	total := 0
	for _, rule := range allRules {
		for _, goal := range allGoals {
			for range 5 {
				l, err := Generate(rng, GenConfig{Width: 4, Height: 6, Rule: rule, Colors: 3,
					Fill: 0.4, Pieces: 4, Goal: goal, Score: 1 + rng.Int64N(20)})
				if err != nil {
					t.Fatal(err)
				}
				straight := solveOK(t, k, l, solver.Options{})
				if straight.Details["search"] != searchExact {
					t.Fatalf("not exact")
				}
				res, stops := interruptedSolve(t, k, l, rng, 12, max(straight.Stats.Nodes/5, 2))
				sameResult(t, l, res, straight)
				total += stops
			}
		}
	}
	if total < 100 {
		t.Fatalf("only %d interruptions", total)
	}
}

// TestResumeBeam does the same for the beam search on 30-piece levels.
func TestResumeBeam(t *testing.T) {
	k := NewWithConfig(Config{BeamWidth: 20, MaxBeamWidth: 80})
	rng := rand.New(rand.NewPCG(13, 14))
	total := 0
	for _, rule := range allRules {
		for _, goal := range allGoals {
			for range 2 {
				l, err := Generate(rng, GenConfig{Width: 6, Height: 12, Rule: rule, Colors: 4,
					Fill: 0.4, Pieces: 30, Goal: goal, Score: 60})
				if err != nil {
					t.Fatal(err)
				}
				straight := solveOK(t, k, l, solver.Options{})
				if straight.Details["search"] == searchExact {
					t.Fatalf("not beam")
				}
				res, stops := interruptedSolve(t, k, l, rng, 20*18, max(straight.Stats.Nodes/4, 2))
				sameResult(t, l, res, straight)
				total += stops
			}
		}
	}
	if total < 20 {
		t.Fatalf("only %d interruptions", total)
	}
}

// TestResumeAfterCancel cancels ctx from the checkpoint hook and resumes.
func TestResumeAfterCancel(t *testing.T) {
	for _, pieces := range []int{5, 40} {
		k := NewWithConfig(Config{BeamWidth: 30, MaxBeamWidth: 120})
		rng := rand.New(rand.NewPCG(uint64(pieces), 1))
		l, err := Generate(rng, GenConfig{Width: 5, Height: 10, Colors: 3, Fill: 0.4, Pieces: pieces, Goal: GoalScore, Score: 200})
		if err != nil {
			t.Fatal(err)
		}
		straight := solveOK(t, k, l, solver.Options{})
		var blob []byte
		for tries := 0; ; tries++ {
			ctx, cancel := context.WithCancel(context.Background())
			n := 0
			opts := solver.Options{CheckpointEvery: time.Nanosecond, Resume: blob,
				Checkpoint: func(b []byte) {
					blob = append(blob[:0:0], b...)
					if n++; n == 3 {
						cancel()
					}
				}}
			res, err := k.Solve(ctx, l, opts)
			cancel()
			if err == nil {
				sameResult(t, l, res, straight)
				if tries == 0 {
					t.Fatalf("%d pieces: never interrupted", pieces)
				}
				break
			}
			if !errors.Is(err, context.Canceled) || res.Verdict == solver.Solved && l.Goal.Type != GoalScore {
				t.Fatalf("err %v verdict %s", err, res.Verdict)
			}
			if err := k.Verify(l, res); err != nil {
				t.Fatalf("partial: %v", err)
			}
		}
	}
}

func TestResumeRejectsForeignBlob(t *testing.T) {
	k := New()
	l := mustParse(t, levelJSONOf(RuleLines, []string{"...", "...", "..."}, []string{"ABC"}, `{"type":"survive"}`))
	bad := append([]byte("PZC1"), make([]byte, 16)...)
	for _, payload := range [][]byte{nil, {'D'}, {'D', 1, 5, 0, 0, 0}, {'B', 1, 0}, {'X', 1}} {
		_, err := k.Solve(context.Background(), l, solver.Options{Resume: append(bad, payload...)})
		if !errors.Is(err, ErrBadCheckpoint) {
			t.Fatalf("payload %v: err %v", payload, err)
		}
	}
}
