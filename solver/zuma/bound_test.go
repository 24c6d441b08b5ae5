package zuma

import (
	"math/rand/v2"
	"testing"
)

// TestBoundAdmissible: on random small hand levels, the counting test and
// the hand bound never claim more than the oracle's fewest insertions, and
// only claim unsolvable (inf) when the oracle finds no plan.
func TestBoundAdmissible(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(21, 1))
	var bd bounder
	tight := 0
	for range 3000 {
		colors := 2 + r.IntN(3)
		board := randomBoard(r, 1+r.IntN(10), colors)
		hand := randomBalls(r, r.IntN(5), colors)
		h := handCounts(hand)
		want := oracleHand(board, hand)
		lb := bd.handBound([]byte(board), &h)
		plain := bd.bound([]byte(board), &h)
		if lb < min(plain, inf) {
			t.Fatalf("%s+%s: hand bound %d below the plain bound %d", board, hand, lb, plain)
		}
		if want < 0 {
			continue
		}
		if lb > want || countShort(board, &h) {
			t.Fatalf("%s+%s: bound %d (count short %v), oracle %d", board, hand, lb, countShort(board, &h), want)
		}
		if lb == want {
			tight++
		}
	}
	t.Logf("bound met the optimum on %d levels", tight)
}

// TestBoundUsage: the partition that usage traces costs exactly what the
// DP says, under random weights and hands.
func TestBoundUsage(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(22, 1))
	var bd bounder
	for range 20000 {
		colors := 2 + r.IntN(4)
		b := []byte(randomBoard(r, 1+r.IntN(40), colors))
		var avail *[26]int8
		h := handCounts(randomBalls(r, r.IntN(12), colors))
		if r.IntN(3) > 0 {
			avail = &h
		}
		var w [26]int16
		for c := range w {
			w[c] = 1 + int16(r.IntN(4))
		}
		v := bd.weighted(b, avail, &w)
		if v >= inf {
			continue
		}
		var use [26]int16
		bd.usage(b, &use)
		cost := 0
		for c := range use {
			cost += int(use[c]) * int(w[c])
			if avail != nil && use[c] > 0 && avail[c] < 1 {
				t.Fatalf("%s: partition uses %c, none available", b, 'A'+c)
			}
		}
		if cost != v {
			t.Fatalf("%s %v: traced partition costs %d, DP %d", b, w[:colors], cost, v)
		}
	}
}
