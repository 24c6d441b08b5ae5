package worker

import (
	"sync"
	"time"
)

// Bulk searches yield the CPU to interactive work: while an interactive
// job is on its way (submitted anywhere, or running here), the worker
// stops its solve processes. Lowering their priority is not enough: on
// the 2-CPU VM where we measure, any busy CPU, even one that runs only
// SCHED_IDLE threads, adds 2–3 ms to the ~4 ms from submit to answer,
// spread over every hop of the way (API, PostgreSQL, Redis, worker);
// stopped children give the CPUs back (docs/queries.md has the figures).
// The pause is bounded so that a stream of interactive jobs cannot starve
// bulk work: at most YieldMax at a time, then at least YieldGap of
// running.
const (
	// YieldWindow is how long a notice of a submitted interactive job
	// keeps the solve processes stopped: long enough for the job to be
	// picked up here or elsewhere (an idle stack answers in 4–10 ms).
	YieldWindow = 20 * time.Millisecond
	// YieldTail keeps them stopped after an interactive job ended here,
	// while its result travels to the client.
	YieldTail = 5 * time.Millisecond
	// YieldMax is the longest pause; YieldGap the least running time
	// after a pause cut short by YieldMax: bulk searches keep at least
	// a fifth of the time under any interactive load.
	YieldMax = 200 * time.Millisecond
	YieldGap = 50 * time.Millisecond
)

// pauser stops and resumes the bulk searches (solveproc.Pool).
type pauser interface {
	Pause()
	Resume()
}

// yieldLimits are the durations of the pause rules: YieldWindow,
// YieldTail, YieldMax and YieldGap in production; a test of the timers
// may lift YieldMax out of its way.
type yieldLimits struct {
	window, tail, max, gap time.Duration
}

var defaultYieldLimits = yieldLimits{window: YieldWindow, tail: YieldTail, max: YieldMax, gap: YieldGap}

// yieldState decides when bulk searches are stopped. It is pure (time
// comes in as now) so that its rules are tested without clocks.
type yieldState struct {
	limits      yieldLimits
	active      int       // interactive jobs running in this process
	until       time.Time // a notice or a job's end asks for the pause until then
	pausedSince time.Time // zero while bulk searches run
	gapUntil    time.Time // no pause before then (after one cut by YieldMax)
}

// step applies the rules at now: it reports whether bulk searches should
// be stopped, and when to step again (zero: only at the next event).
func (s *yieldState) step(now time.Time) (paused bool, next time.Time) {
	demand := s.active > 0 || now.Before(s.until)
	if !s.pausedSince.IsZero() {
		switch {
		case !demand:
			s.pausedSince = time.Time{}
			return false, time.Time{}
		case now.Sub(s.pausedSince) >= s.limits.max:
			s.pausedSince = time.Time{}
			s.gapUntil = now.Add(s.limits.gap)
			return false, s.gapUntil
		}
		return true, s.wake()
	}
	switch {
	case !demand:
		return false, time.Time{}
	case now.Before(s.gapUntil):
		return false, s.gapUntil
	}
	s.pausedSince = now
	return true, s.wake()
}

// wake is when a pause must be looked at again: when the demand may end
// (no job running here and the notice's window over), or at YieldMax.
func (s *yieldState) wake() time.Time {
	limit := s.pausedSince.Add(s.limits.max)
	if s.active == 0 && s.until.Before(limit) {
		return s.until
	}
	return limit
}

// yielder applies yieldState to a pauser as events come and time passes.
type yielder struct {
	p pauser

	mu     sync.Mutex
	s      yieldState
	closed bool
	paused bool
	timer  *time.Timer
	pauses int64         // pauses begun, for metrics
	total  time.Duration // time spent paused, ended pauses only
}

func newYielder(p pauser) *yielder { return newYielderWith(p, defaultYieldLimits) }

func newYielderWith(p pauser, limits yieldLimits) *yielder {
	return &yielder{p: p, s: yieldState{limits: limits}}
}

// notice: an interactive job was submitted somewhere.
func (y *yielder) notice() {
	y.mu.Lock()
	defer y.mu.Unlock()
	now := time.Now()
	if u := now.Add(y.s.limits.window); u.After(y.s.until) {
		y.s.until = u
	}
	y.apply(now)
}

// begin: an interactive job starts running here; the returned func ends it.
func (y *yielder) begin() (end func()) {
	y.mu.Lock()
	defer y.mu.Unlock()
	y.s.active++
	y.apply(time.Now())
	return func() {
		y.mu.Lock()
		defer y.mu.Unlock()
		now := time.Now()
		y.s.active--
		if u := now.Add(y.s.limits.tail); u.After(y.s.until) {
			y.s.until = u
		}
		y.apply(now)
	}
}

// apply steps the state and acts on it; y.mu is held.
func (y *yielder) apply(now time.Time) {
	if y.closed {
		return
	}
	since := y.s.pausedSince
	paused, next := y.s.step(now)
	switch {
	case paused && !y.paused:
		y.p.Pause()
		y.pauses++
	case !paused && y.paused:
		y.p.Resume()
		y.total += now.Sub(since)
	}
	y.paused = paused
	if y.timer != nil {
		y.timer.Stop()
		y.timer = nil
	}
	if !next.IsZero() {
		y.timer = time.AfterFunc(next.Sub(now), func() {
			y.mu.Lock()
			defer y.mu.Unlock()
			y.apply(time.Now())
		})
	}
}

// stats reports the pauses begun and the time spent paused so far.
func (y *yielder) stats() (pauses int64, paused time.Duration) {
	y.mu.Lock()
	defer y.mu.Unlock()
	paused = y.total
	if y.paused {
		paused += time.Since(y.s.pausedSince)
	}
	return y.pauses, paused
}

// close resumes the bulk searches for good.
func (y *yielder) close() {
	y.mu.Lock()
	defer y.mu.Unlock()
	if y.timer != nil {
		y.timer.Stop()
	}
	if y.paused {
		y.p.Resume()
		y.total += time.Since(y.s.pausedSince)
		y.paused = false
	}
	y.closed = true
}
