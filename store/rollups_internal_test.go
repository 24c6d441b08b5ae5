package store

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// exactPercentile is percentile_cont of values (sorted in place).
func exactPercentile(values []float64, q float64) float64 {
	slices.Sort(values)
	pos := q * float64(len(values)-1)
	lo := int(math.Floor(pos))
	if lo+1 >= len(values) {
		return values[lo]
	}
	return values[lo] + (pos-float64(lo))*(values[lo+1]-values[lo])
}

// TestHistogramPercentiles checks that a percentile read from the
// histogram is within 2^(1/16) − 1 = 4.43 % of percentile_cont's, on whole-number samples
// of several shapes (the solve times and node counts it summarises).
func TestHistogramPercentiles(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 1))
	shapes := map[string]func() float64{
		"zeros and ones": func() float64 { return float64(r.IntN(2)) },
		"uniform":        func() float64 { return float64(r.IntN(1000)) },
		"log-normal":     func() float64 { return math.Floor(math.Exp(r.NormFloat64()*2 + 5)) },
		"heavy tail":     func() float64 { return math.Floor(1 / (r.Float64() + 1e-6)) },
		"one value":      func() float64 { return 737 },
	}
	for name, draw := range shapes {
		for _, n := range []int{1, 2, 17, 1000, 20000} {
			values := make([]float64, n)
			h := histogram{}
			for i := range values {
				values[i] = draw()
				h[bucketOf(values[i])]++
			}
			for _, q := range []float64{0, 0.5, 0.95, 0.99, 1} {
				want := exactPercentile(values, q)
				got, ok := h.percentile(q)
				if !ok || math.Abs(got-want) > (math.Exp2(1.0/16)-1)*want+1e-9 && !(want < 1 && got == 0) {
					t.Errorf("%s, n=%d: p%.0f = %.3f, exact %.3f", name, n, 100*q, got, want)
				}
			}
		}
	}
	if _, ok := (histogram{}).percentile(0.5); ok {
		t.Error("an empty histogram has a percentile")
	}
}

// TestBucketOfMatchesSQL spot-checks bucketOf against the boundaries the
// SQL function puzzled_bucket uses (1 + ⌊8·log2 x⌋).
func TestBucketOfMatchesSQL(t *testing.T) {
	for x, want := range map[float64]int{0: 0, 0.5: 0, 1: 1, 2: 9, 3: 13, 1000: 80} {
		if got := bucketOf(x); got != want {
			t.Errorf("bucketOf(%v) = %d, want %d", x, got, want)
		}
	}
}
