package twoends

import (
	"math/rand/v2"
	"testing"
	"time"
)

func TestZZProbe(t *testing.T) {
	n := 20000
	r := rand.New(rand.NewPCG(1, 1))
	pats := map[string]func(i int) int64{
		"inc":      func(i int) int64 { return int64(i) },
		"dec":      func(i int) int64 { return int64(n - i) },
		"zigzag":   func(i int) int64 { if i%2 == 0 { return int64(i) }; return 0 },
		"zigzag2":  func(i int) int64 { if i%2 == 0 { return 1000000 }; return int64(i) },
		"bits":     func(i int) int64 { return int64(r.IntN(2)) },
		"equal":    func(i int) int64 { return 7 },
		"valley":   func(i int) int64 { d := i - n/2; if d < 0 { d = -d }; return int64(d) },
		"peak":     func(i int) int64 { d := i - n/2; if d < 0 { d = -d }; return int64(n - d) },
		"saw":      func(i int) int64 { return int64(i % 7) },
		"inc-alt":  func(i int) int64 { if i%2 == 0 { return int64(i) }; return int64(-i) },
	}
	for name, f := range pats {
		a := make([]int64, n)
		for i := range a {
			a[i] = f(i)
		}
		s := &search{a: a}
		v, _ := gameValue(a, nil)
		s.i, s.j, s.cur, s.phase = 0, n-1, v, phaseLine
		st := time.Now()
		o := &lineOracle{a: a}
		for s.i < s.j {
			lastR := len(s.line) > 0 && s.line[len(s.line)-1] == 'R'
			if rest := o.restOfL(s.i, s.j, lastR); a[s.i]-rest == s.cur {
				s.line = append(s.line, 'L'); s.i++; s.cur = rest
			} else {
				s.line = append(s.line, 'R'); s.cur = a[s.j] - s.cur; s.j--
			}
		}
		t.Logf("%-8s rescans=%5d time=%v", name, o.rescan, time.Since(st))
	}
}
