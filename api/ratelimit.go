package api

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// rateLimits holds one token bucket per principal.
type rateLimits struct {
	perSecond float64
	mu        sync.Mutex
	buckets   map[string]*rate.Limiter
}

func newRateLimits(perSecond float64) *rateLimits {
	return &rateLimits{perSecond: perSecond, buckets: map[string]*rate.Limiter{}}
}

// allow takes one submission from who's bucket, or says how long to wait.
func (l *rateLimits) allow(who string) (time.Duration, bool) {
	l.mu.Lock()
	b, ok := l.buckets[who]
	if !ok {
		b = rate.NewLimiter(rate.Limit(l.perSecond), max(1, int(2*l.perSecond)))
		l.buckets[who] = b
	}
	l.mu.Unlock()
	r := b.Reserve()
	if d := r.Delay(); d > 0 {
		r.Cancel()
		return d, false
	}
	return 0, true
}
