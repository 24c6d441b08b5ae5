package twoends

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/puzzled/puzzled/solver"
)

// TestPositionAgreesWithBruteForce: after a random prefix of a random row,
// the margin so far plus Sign times the solved value of the row left is
// the brute-force minimax margin of the whole game from there.
func TestPositionAgreesWithBruteForce(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(13, 32))
	for n := range 500 {
		values := make([]int64, 1+rng.IntN(10))
		for i := range values {
			values[i] = rng.Int64N(21) - 10
		}
		l, err := NewLevel(values)
		if err != nil {
			t.Fatal(err)
		}
		line := ""
		for range rng.IntN(len(values) + 1) {
			line += string("LR"[rng.IntN(2)])
		}
		plan, _ := json.Marshal(line)
		p, err := kind{}.Position(l, plan)
		if err != nil {
			t.Fatal(err)
		}
		left, right := 0, len(values)-1
		for _, c := range line {
			if c == 'L' {
				left++
			} else {
				right--
			}
		}
		want := p.Value + sign(len(line))*minimax(values[left:right+1])
		if p.Over {
			if left <= right || want != p.Value {
				t.Fatalf("row %v after %s: over %t", values, line, p.Over)
			}
			continue
		}
		res, err := kind{}.Solve(context.Background(), p.Level, solver.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Value + p.Sign**res.Value; got != want || len(p.Moves) != 2 {
			t.Fatalf("level %d row %v after %s: margin %d, brute force %d", n, values, line, got, want)
		}
	}
}

func sign(moves int) int64 {
	if moves%2 == 1 {
		return -1
	}
	return 1
}
