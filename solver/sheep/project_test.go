package sheep

import (
	"bytes"
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/puzzled/puzzled/solver"
)

// TestProjectionProofsAgainstOracle: on random small levels every
// projection the search exhausts belongs to a level the brute-force oracle
// finds unsolvable, a solvable level's projections are all solvable, and
// projection proofs fire (on levels the oracle confirms) and verify.
func TestProjectionProofsAgainstOracle(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(14, 2026))
	fired, checked := 0, 0
	for k := range 3000 {
		l := mustParse(t, smallLevel(rng))
		if precheckFail(l) != "" {
			continue
		}
		m, _ := solver.NewMeter(context.Background(), solver.Options{})
		s := newSearch(l, m, schedule{proj: projectionPlan{extra: 3, subsets: 1 << 20, perNodes: 4096, total: 1 << 20}})
		out, mask := s.proveByProjection()
		if out == projStopped {
			t.Fatalf("level %d: projections stopped without a budget", k)
		}
		solvable := newOracle(l).solve() != nil
		checked++
		if out == projProven {
			fired++
			if solvable {
				t.Fatalf("level %d %s: projection onto %s proves a solvable level unsolvable", k, l.Canonical(), projectionProof(l, mask))
			}
			res := solver.Result{Verdict: solver.Unsolvable, Proof: projectionProof(l, mask), Plan: []byte("[]"),
				Details: map[string]any{"tiles": len(l.tiles), "cleared": 0}}
			if err := Verify(l, res); err != nil {
				t.Fatalf("level %d: own projection proof rejected: %v", k, err)
			}
		}
	}
	t.Logf("%d levels, %d proven unsolvable by a projection", checked, fired)
	if fired < 10 {
		t.Fatalf("projection proofs fired only %d times", fired)
	}
}

// TestVerifyRejectsFalseProjection: a projection proof that does not hold
// (a solvable projection, unknown types, the whole type set) is rejected.
func TestVerifyRejectsFalseProjection(t *testing.T) {
	t.Parallel()
	l := mustParse(t, []byte(`{"kind":"sheep","slots":3,"tiles":[
		{"id":"a","type":1,"x":0,"y":0,"layer":1},{"id":"b","type":1,"x":8,"y":0,"layer":1},{"id":"c","type":1,"x":16,"y":0,"layer":1},
		{"id":"d","type":2,"x":0,"y":8,"layer":1},{"id":"e","type":2,"x":8,"y":8,"layer":1},{"id":"f","type":2,"x":16,"y":8,"layer":1},
		{"id":"g","type":3,"x":0,"y":16,"layer":1},{"id":"h","type":3,"x":8,"y":16,"layer":1},{"id":"i","type":3,"x":16,"y":16,"layer":1}]}`))
	for _, proof := range []string{"projection:types=1,2", "projection:types=1,9", "projection:types=1,2,3", "projection:types=x", "projection:types=1,1"} {
		res := solver.Result{Verdict: solver.Unsolvable, Proof: proof, Plan: []byte("[]"),
			Details: map[string]any{"tiles": 9, "cleared": 0}}
		if err := Verify(l, res); err == nil {
			t.Fatalf("proof %q accepted", proof)
		}
	}
}

// TestProjectionPhaseResumesExactly interrupts searches that end with a
// projection proof every few nodes, so checkpoints fall inside the
// projection phase and inside a projection's own search: each resumed run
// ends with the same proof after the same nodes (plus one per resume, the
// node that ran out of budget).
func TestProjectionPhaseResumesExactly(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 14))
	found := 0
	for tries := 0; found < 5 && tries < 20000; tries++ {
		l := mustParse(t, smallLevel(rng))
		full := solveVerifiedWith(t, l, solver.Options{}, tinySchedule)
		if !strings.HasPrefix(full.Proof, "projection:") {
			continue
		}
		found++
		var blob []byte
		var last solver.Result
		resumes, inSub := int64(0), 0
		for round := 0; ; round++ {
			if round == 10000 {
				t.Fatalf("no verdict after %d resumes", round)
			}
			var got []byte
			opts := solver.Options{
				Budget:          solver.Budget{MaxNodes: last.Stats.Nodes + 7},
				CheckpointEvery: time.Nanosecond,
				Checkpoint:      func(b []byte) { got = append(got[:0], b...) },
				Resume:          blob,
			}
			res := solveVerifiedWith(t, l, opts, tinySchedule)
			if blob != nil {
				resumes++
			}
			if res.Verdict != solver.Unknown {
				last = res
				break
			}
			if bytes.Count(got, []byte(payloadMagic)) > 1 {
				inSub++ // a projection's payload nested in the checkpoint
			}
			blob, last = got, res
		}
		if last.Proof != full.Proof || last.Stats.Nodes != full.Stats.Nodes+resumes {
			t.Fatalf("%s: resumed %s after %d nodes (%d resumes), uninterrupted %s after %d",
				l.Canonical(), last.Proof, last.Stats.Nodes, resumes, full.Proof, full.Stats.Nodes)
		}
		if inSub == 0 {
			t.Fatalf("%s: no checkpoint fell inside a projection's search", l.Canonical())
		}
	}
	if found < 5 {
		t.Fatalf("only %d levels end with a projection proof", found)
	}
}
