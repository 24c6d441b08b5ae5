package twoends

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/puzzled/puzzled/solver"
)

// dpValue is the textbook interval DP with one rolling row: O(n²) time,
// O(n) memory. The value baseline.
func dpValue(a []int64) int64 {
	n := len(a)
	row := append([]int64(nil), a...) // row[i] = f(i, i+len-1)
	for length := 2; length <= n; length++ {
		for i := 0; i+length-1 < n; i++ {
			j := i + length - 1
			row[i] = max(a[i]-row[i+1], a[j]-row[i])
		}
	}
	return row[0]
}

func benchValues(n int) []int64 {
	r := rand.New(rand.NewPCG(uint64(n), 5))
	return randomValues(r, n, 0, 10_000_000)
}

// BenchmarkValue: the linear-time value (kernel, and the whole Solve where
// the line is omitted) against the rolling-row DP baseline at n = 20,000.
func BenchmarkValue(b *testing.B) {
	for _, n := range []int{20_000, 10_000_000} {
		a := benchValues(n)
		l := mustLevel(b, a)
		if n > LineLimit {
			b.Run(fmt.Sprintf("solve/n=%d", n), func(b *testing.B) {
				for b.Loop() {
					if _, err := New().Solve(context.Background(), l, solver.Options{}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		b.Run(fmt.Sprintf("kernel/n=%d", n), func(b *testing.B) {
			buf := make([]int64, n)
			for b.Loop() {
				gameValue(a, buf)
			}
		})
		if n <= 20_000 {
			b.Run(fmt.Sprintf("dp/n=%d", n), func(b *testing.B) {
				for b.Loop() {
					dpValue(a)
				}
			})
		}
	}
}

// BenchmarkLine: the whole Solve (value and line) against the full-table
// DP, at the largest n the table fits comfortably (4,000: 128 MB), and
// alone at the line limit.
func BenchmarkLine(b *testing.B) {
	for _, n := range []int{4_000, LineLimit} {
		a := benchValues(n)
		l := mustLevel(b, a)
		b.Run(fmt.Sprintf("fast/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := New().Solve(context.Background(), l, solver.Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		if n <= 4_000 {
			b.Run(fmt.Sprintf("dp/n=%d", n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					tab := dpTable(a)
					dpLine(a, tab)
				}
			})
		}
	}
}

// shapes are inputs that are hard for the line: tall reduction stacks or
// many changes of direction.
var shapes = []struct {
	name string
	f    func(r *rand.Rand, i, n int) int64
}{
	{"random", func(r *rand.Rand, i, n int) int64 { return r.Int64N(10_000_001) }},
	{"bits", func(r *rand.Rand, i, n int) int64 { return r.Int64N(2) }},
	{"peak", func(r *rand.Rand, i, n int) int64 { return int64(n - abs(i-n/2)) }},
	{"valley", func(r *rand.Rand, i, n int) int64 { return int64(abs(i - n/2)) }},
	{"increasing", func(r *rand.Rand, i, n int) int64 { return int64(i) }},
	{"zigzag", func(r *rand.Rand, i, n int) int64 { return int64(i % 2 * i) }},
}

func abs(x int) int { return max(x, -x) }

// BenchmarkLineShapes: Solve (value and line) at the line limit on hard
// shapes, with the DP value at the same n as the baseline.
func BenchmarkLineShapes(b *testing.B) {
	n := LineLimit
	for _, sh := range shapes {
		r := rand.New(rand.NewPCG(9, 9))
		a := make([]int64, n)
		for i := range a {
			a[i] = sh.f(r, i, n)
		}
		l := mustLevel(b, a)
		b.Run(sh.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := New().Solve(context.Background(), l, solver.Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	a := benchValues(n)
	b.Run("dp-value-baseline", func(b *testing.B) {
		for b.Loop() {
			dpValue(a)
		}
	})
}
