package webhook

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Backoff is the retry schedule of a delivery: after attempt n+1 fails
// (n = 0, 1, …), the next waits First·2ⁿ, at most Max; Retries attempts
// follow the first.
type Backoff struct {
	First   time.Duration
	Max     time.Duration
	Retries int
}

// DefaultBackoff retries 14 times over about 27 hours: after 10 s, 20 s,
// 40 s, … 5.7 h, then 8 h twice.
var DefaultBackoff = Backoff{First: 10 * time.Second, Max: 8 * time.Hour, Retries: 14}

// Delay is the wait before retry n+1 (n retries done so far).
func (b Backoff) Delay(n int) time.Duration {
	d := b.First
	for range n {
		if d >= b.Max/2 {
			return b.Max
		}
		d *= 2
	}
	return min(d, b.Max)
}

// Span is the time from the first attempt to the last, when every one
// fails at once.
func (b Backoff) Span() time.Duration {
	var total time.Duration
	for n := range b.Retries {
		total += b.Delay(n)
	}
	return total
}

func (b Backoff) String() string {
	return fmt.Sprintf("%s,%s,%d", b.First, b.Max, b.Retries)
}

// ParseBackoff reads "FIRST,MAX,RETRIES", e.g. "10s,8h,14"
// (PUZZLED_WEBHOOK_RETRY).
func ParseBackoff(s string) (Backoff, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 3 {
		return Backoff{}, fmt.Errorf("retry schedule %q: want FIRST,MAX,RETRIES, e.g. 10s,8h,14", s)
	}
	first, err1 := time.ParseDuration(strings.TrimSpace(parts[0]))
	maxDelay, err2 := time.ParseDuration(strings.TrimSpace(parts[1]))
	retries, err3 := strconv.Atoi(strings.TrimSpace(parts[2]))
	if err1 != nil || err2 != nil || err3 != nil || first <= 0 || maxDelay < first || retries < 0 {
		return Backoff{}, fmt.Errorf("retry schedule %q: want FIRST,MAX,RETRIES with 0 < FIRST ≤ MAX and RETRIES ≥ 0", s)
	}
	return Backoff{First: first, Max: maxDelay, Retries: retries}, nil
}
