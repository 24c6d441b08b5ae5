package sheep

import (
	"math/rand/v2"
	"testing"

	"github.com/puzzled/puzzled/solver"
)

// TestDeadTableEvicts fills small tables far past their capacity with
// random keys (many sharing a hash, so probe chains are long and cross
// each other): the table never holds more than max entries, never claims
// a key it was not given, keeps every key it holds reachable (a
// backward-shift deletion that broke a chain would hide one), holds the
// newest key, and evicts the least-work entry of its window.
func TestDeadTableEvicts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		tiles     int
		max       int
		adds      int
		hashRange uint64
	}{
		{"one word, colliding hashes", 60, 50, 2000, 16},
		{"four words", 255, 300, 5000, 1 << 62},
		{"capacity one", 130, 1, 100, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(3, uint64(tc.max)))
			d := newDeadTableMax(tc.tiles, tc.max)
			type entry struct {
				h   uint64
				key []uint64
			}
			var given []entry
			evictions := 0
			for range tc.adds {
				key := make([]uint64, d.w)
				for j := range key {
					key[j] = rng.Uint64()
				}
				h := rng.Uint64N(tc.hashRange)
				if d.len() == tc.max {
					evictions++
				}
				d.add(h, key, int64(rng.IntN(100)))
				given = append(given, entry{h, key})
				if !d.contains(h, key) {
					t.Fatal("the newest key is missing")
				}
				if d.len() > tc.max {
					t.Fatalf("table holds %d entries, max %d", d.len(), tc.max)
				}
			}
			held := 0
			for _, g := range given {
				if d.contains(g.h, g.key) {
					held++
				}
			}
			if held != d.len() {
				t.Fatalf("%d given keys found, table holds %d entries", held, d.len())
			}
			for e := range d.len() {
				if !d.contains(d.hashs[e], d.keys[e*d.w:(e+1)*d.w]) {
					t.Fatalf("entry %d unreachable", e)
				}
			}
			// Keys never given are never found, even on a shared hash.
			for range 1000 {
				key := make([]uint64, d.w)
				for j := range key {
					key[j] = rng.Uint64()
				}
				if d.contains(rng.Uint64N(tc.hashRange), key) {
					t.Fatal("a key never added is found")
				}
			}
			if evictions == 0 {
				t.Fatal("the table never evicted")
			}
		})
	}
	// The victim is the least-work entry of the window.
	d := newDeadTableMax(64, evictWindow)
	for k := range evictWindow {
		d.add(uint64(k), []uint64{uint64(k)}, int64(10+k))
	}
	d.work[5] = 1
	d.add(99, []uint64{99}, 50)
	if d.contains(5, []uint64{5}) || !d.contains(4, []uint64{4}) || !d.contains(99, []uint64{99}) {
		t.Fatal("eviction did not replace the least-work entry")
	}
}

// TestSmallTableAgainstOracle exhausts random small levels with tables of
// 2 to 64 entries, so that nearly every pass evicts: the verdicts must be
// the oracle's (an eviction that lost a chain, or kept a state it should
// not, would show as a wrong verdict or a wrong line).
func TestSmallTableAgainstOracle(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(14, 77))
	decided, tested := 0, 0
	for k := range 600 {
		l := mustParse(t, smallLevel(rng))
		if precheckFail(l) != "" {
			continue
		}
		want := newOracle(l).solve() != nil
		max := 2 << (k % 6)
		sched := schedule{tableMax: max}
		if k%2 == 1 {
			sched = tinySchedule
			sched.tableMax = max
		}
		res := solveVerifiedWith(t, l, solver.Options{}, sched)
		if got := res.Verdict == solver.Solved; got != want || res.Verdict == solver.Unknown {
			t.Fatalf("level %d %s, table of %d: %s (%s), oracle solvable %v", k, l.Canonical(), max, res.Verdict, res.Proof, want)
		}
		tested++
		if !want {
			decided++
		}
	}
	if decided < tested/20 {
		t.Fatalf("only %d of %d levels unsolvable: the test does not exercise exhaustion", decided, tested)
	}
}
