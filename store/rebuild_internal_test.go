package store

import "testing"

func TestWorthRebuilding(t *testing.T) {
	i64 := func(v int64) *int64 { return &v }
	f64 := func(v float64) *float64 { return &v }
	const mb = 1 << 20
	for _, c := range []struct {
		name         string
		bytes        int64
		entries      float64
		builtBytes   *int64
		builtEntries *float64
		want         bool
	}{
		{"never built, large", 2 * mb, 50_000, nil, nil, true},
		{"never built, small", mb / 2, 10_000, nil, nil, false},
		{"as dense as built", 20 * mb, 400_000, i64(10 * mb), f64(200_000), false},
		{"a little looser than built (1.2×)", 12 * mb, 200_000, i64(10 * mb), f64(200_000), false},
		{"settled after random inserts (1.3×)", 13 * mb, 200_000, i64(10 * mb), f64(200_000), true},
		{"entries deleted, pages kept (4×)", 20 * mb, 100_000, i64(10 * mb), f64(200_000), true},
		{"sparse, but less than a MB to gain", mb, 100, i64(10 * mb), f64(100_000), false},
		{"sparse, a MB to gain", 2 * mb, 100, i64(10 * mb), f64(100_000), true},
		{"built nearly empty, now large", 8 * mb, 150_000, i64(8192), f64(3), true},
		{"built nearly empty, still small", mb / 2, 1_000, i64(8192), f64(3), false},
		{"every entry gone", 8 * mb, 0, i64(8 * mb), f64(100_000), true},
	} {
		if got := worthRebuilding(c.bytes, c.entries, c.builtBytes, c.builtEntries); got != c.want {
			t.Errorf("%s: worthRebuilding(%d, %.0f, …) = %v, want %v", c.name, c.bytes, c.entries, got, c.want)
		}
	}
}
