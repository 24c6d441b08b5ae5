package columns

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/puzzled/puzzled/solver"
)

// TestRoundsKeepTheBest: a survive level played in rounds of widths 8…64
// scores at least what the first round alone scores, best_score is the
// best of every round's lines, and on some levels a later round improves
// on the first.
func TestRoundsKeepTheBest(t *testing.T) {
	one := NewWithConfig(Config{BeamWidth: 8, MaxBeamWidth: 8})
	rounds := NewWithConfig(Config{BeamWidth: 8, MaxBeamWidth: 64})
	rng := rand.New(rand.NewPCG(19, 1))
	improved := 0
	for i := range 12 {
		l, err := Generate(rng, GenConfig{Width: 6, Height: 12, Rule: allRules[i%2], Colors: 4,
			Fill: 0.3, Pieces: 30, Goal: GoalSurvive})
		if err != nil {
			t.Fatal(err)
		}
		a := solveOK(t, one, l, solver.Options{})
		b := solveOK(t, rounds, l, solver.Options{})
		bestA, _ := solver.DetailInt(a.Details["best_score"])
		bestB, _ := solver.DetailInt(b.Details["best_score"])
		if a.Verdict == solver.Solved && (b.Verdict != solver.Solved || *b.Value < *a.Value) || bestB < bestA {
			t.Fatalf("%s: rounds %s %d (best %d) worse than one round %s %d (best %d)",
				l.Canonical(), b.Verdict, *b.Value, bestB, a.Verdict, *a.Value, bestA)
		}
		if *b.Value > *a.Value {
			improved++
		}
	}
	if improved == 0 {
		t.Fatal("wider rounds never improved a plan")
	}
}

// TestBestScoreReported: a plan that stops at its goal (clear, target,
// score) or a surviving line may score less than the best line the search
// saw, and best_score reports that line's score; an unsolved result's plan
// is the best line.
func TestBestScoreReported(t *testing.T) {
	k := NewWithConfig(Config{BeamWidth: 16, MaxBeamWidth: 32})
	rng := rand.New(rand.NewPCG(19, 2))
	above, unsolved := 0, 0
	for i := range 24 {
		l, err := Generate(rng, GenConfig{Width: 6, Height: 12, Rule: allRules[i%2], Colors: 4,
			Fill: 0.3, Pieces: 30, Goal: allGoals[i%4], Score: 20 + rng.Int64N(400)})
		if err != nil {
			t.Fatal(err)
		}
		res := solveOK(t, k, l, solver.Options{})
		best, ok := solver.DetailInt(res.Details["best_score"])
		if !ok {
			t.Fatalf("%s: no best_score in %v", l.Canonical(), res.Details)
		}
		switch res.Verdict {
		case solver.Solved:
			if best > *res.Value {
				above++
			}
		default:
			unsolved++
			if best != *res.Value {
				t.Fatalf("%s: unsolved plan scores %d, best_score %d", l.Canonical(), *res.Value, best)
			}
		}
	}
	if above == 0 || unsolved == 0 {
		t.Fatalf("best_score above the plan's score %d times, unsolved %d: the test shows nothing", above, unsolved)
	}
}

// TestResumeRounds interrupts survive levels across the beam's rounds and
// checks that the result equals a straight run and that checkpoints taken
// in later rounds were resumed.
func TestResumeRounds(t *testing.T) {
	k := NewWithConfig(Config{BeamWidth: 4, MaxBeamWidth: 32})
	rng := rand.New(rand.NewPCG(19, 3))
	lateRounds := 0
	for i := range 6 {
		l, err := Generate(rng, GenConfig{Width: 6, Height: 12, Rule: allRules[i%2], Colors: 4,
			Fill: 0.3, Pieces: 25, Goal: GoalSurvive})
		if err != nil {
			t.Fatal(err)
		}
		straight := solveOK(t, k, l, solver.Options{})
		var blob []byte
		for {
			var last []byte
			budget := solver.CheckpointNodes(blob) + 300 + rng.Int64N(600)
			res := solveOK(t, k, l, solver.Options{
				Budget:          solver.Budget{MaxNodes: budget},
				CheckpointEvery: time.Nanosecond,
				Checkpoint:      func(b []byte) { last = append([]byte{}, b...) },
				Resume:          blob,
			})
			if res.Stats.Nodes < budget {
				sameResult(t, l, res, straight)
				break
			}
			if round, _ := binary.Uvarint(solver.CheckpointPayload(last)[2:]); round > 0 {
				lateRounds++
			}
			blob = last
		}
	}
	if lateRounds < 10 {
		t.Fatalf("only %d checkpoints after the first round", lateRounds)
	}
}
