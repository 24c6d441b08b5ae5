package sheep

import (
	"bytes"
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/puzzled/puzzled/solver"
)

// TestCheckpointResume interrupts searches at random node counts (a small
// MaxNodes budget), resumes from the blob each time until a verdict, and
// compares with an uninterrupted run: same verdict, plan and details;
// node counts continue and Resumed is set.
func TestCheckpointResume(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 3))
	var levels []*Level
	for len(levels) < 40 {
		levels = append(levels, mustParse(t, smallLevel(rng)))
	}
	for k := 1; k <= 12; k++ { // realistic levels that take a few thousand nodes or more
		g, err := Generate(rand.New(rand.NewPCG(uint64(k), 99)), GenerateOpts{Solvable: k%2 == 0})
		if err != nil {
			t.Fatal(err)
		}
		levels = append(levels, g.Level)
	}
	resumes := 0
	for k, l := range levels {
		full := solveVerified(t, l, solver.Options{Budget: solver.Budget{MaxNodes: 20_000}})
		if full.Verdict == solver.Unknown {
			continue // resumed runs rebuild the table, so only verdicts compare
		}
		var blob []byte
		var last solver.Result
		for round := 0; ; round++ {
			if round == 1000 {
				t.Fatalf("level %d: no verdict after %d resumes", k, round)
			}
			var got []byte
			opts := solver.Options{
				Budget:          solver.Budget{MaxNodes: 2 + rng.Int64N(1+full.Stats.Nodes/4)},
				CheckpointEvery: time.Nanosecond,
				Checkpoint:      func(b []byte) { got = append(got[:0], b...) },
				Resume:          blob,
			}
			if blob != nil {
				opts.Budget.MaxNodes += last.Stats.Nodes
			}
			res := solveVerified(t, l, opts)
			if blob != nil {
				resumes++
				if !res.Stats.Resumed || res.Stats.Nodes < last.Stats.Nodes {
					t.Fatalf("level %d round %d: resumed %t, nodes %d after %d", k, round, res.Stats.Resumed, res.Stats.Nodes, last.Stats.Nodes)
				}
			}
			if res.Verdict != solver.Unknown {
				last = res
				break
			}
			if got == nil {
				t.Fatalf("level %d: unknown without a checkpoint", k)
			}
			blob, last = got, res
		}
		if last.Verdict != full.Verdict || !bytes.Equal(last.Plan, full.Plan) || last.Proof != full.Proof ||
			last.Details["cleared"] != full.Details["cleared"] {
			t.Fatalf("level %d: resumed %s %s %v, uninterrupted %s %s %v", k, last.Verdict, last.Plan, last.Details, full.Verdict, full.Plan, full.Details)
		}
	}
	t.Logf("%d levels, %d resumes", len(levels), resumes)
	if resumes < 50 {
		t.Fatalf("only %d resumes exercised", resumes)
	}
}

// TestCancelCheckpoint cancels ctx from the Checkpoint hook and resumes.
func TestCancelCheckpoint(t *testing.T) {
	t.Parallel()
	g, err := Generate(rand.New(rand.NewPCG(1, 99)), GenerateOpts{})
	if err != nil {
		t.Fatal(err)
	}
	l := g.Level
	full := solveVerified(t, l, solver.Options{Budget: solver.Budget{MaxNodes: 50_000}})
	ctx, cancel := context.WithCancel(context.Background())
	var blob []byte
	res, err := Solve(ctx, l, solver.Options{
		Budget:          solver.Budget{MaxNodes: 50_000},
		CheckpointEvery: time.Nanosecond,
		Checkpoint: func(b []byte) {
			if blob == nil {
				blob = append([]byte(nil), b...)
				cancel()
			}
		},
	})
	if err == nil || res.Verdict != solver.Unknown || blob == nil {
		t.Fatalf("cancel: err %v verdict %s blob %d bytes", err, res.Verdict, len(blob))
	}
	if err := Verify(l, res); err != nil {
		t.Fatal(err)
	}
	again := solveVerified(t, l, solver.Options{Budget: solver.Budget{MaxNodes: 50_000 + 2048}, Resume: blob})
	if !again.Stats.Resumed || again.Verdict != full.Verdict || !bytes.Equal(again.Plan, full.Plan) {
		t.Fatalf("resumed %s %s, want %s %s", again.Verdict, again.Plan, full.Verdict, full.Plan)
	}
}

func TestResumeRejectsBadBlobs(t *testing.T) {
	t.Parallel()
	l := mustParse(t, smallLevel(rand.New(rand.NewPCG(1, 1))))
	other := mustParse(t, []byte(`{"kind":"sheep","tiles":[{"id":"a","type":1,"x":0,"y":0,"layer":0}]}`))
	s := newSearch(other, nil)
	s.pushFrame()
	foreign := s.encode()
	s = newSearch(l, nil)
	s.pushFrame()
	own := s.encode()
	damaged := append([]byte(nil), own...)
	damaged[len(damaged)-12] ^= 1
	envelope := func(p []byte) []byte {
		b := append(make([]byte, 20), p...)
		copy(b, "PZC1")
		return b
	}
	for _, b := range [][]byte{envelope(foreign), envelope(nil), envelope(damaged), envelope([]byte("SH\x01xxxxxxxxxxxxxxxx\xff"))} {
		if _, err := Solve(context.Background(), l, solver.Options{Resume: b}); err == nil {
			t.Fatalf("resume from %q accepted", b)
		}
	}
	if _, err := Solve(context.Background(), l, solver.Options{Resume: envelope(own)}); err != nil {
		t.Fatalf("own blob rejected: %v", err)
	}
}
