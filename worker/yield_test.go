package worker

import (
	"sync"
	"testing"
	"time"
)

// TestYieldState walks the pause rules through events at given times
// (milliseconds from t0): each step applies an event, then steps the state
// and checks whether bulk searches are stopped and when it must look again.
func TestYieldState(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	window, tail := int(YieldWindow/time.Millisecond), int(YieldTail/time.Millisecond)
	limit, gap := int(YieldMax/time.Millisecond), int(YieldGap/time.Millisecond)

	type step struct {
		at     int    // ms
		event  string // "notice", "begin", "end" or "" (a timer)
		paused bool
		next   int // ms; -1: no timer
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"nothing asked, nothing stopped", []step{
			{0, "", false, -1},
		}},
		{"a notice stops bulk searches for its window", []step{
			{0, "notice", true, window},
			{window - 1, "", true, window},
			{window, "", false, -1},
		}},
		{"a job picked up here holds the pause past the window, then its tail", []step{
			{0, "notice", true, window},
			{3, "begin", true, limit},
			{window, "", true, limit},
			{60, "end", true, 60 + tail},
			{60 + tail, "", false, -1},
		}},
		{"a job without a notice (submitted before the subscription) pauses too", []step{
			{0, "begin", true, limit},
			{4, "end", true, 4 + tail},
			{4 + tail, "", false, -1},
		}},
		{"notices in a row extend the window", []step{
			{0, "notice", true, window},
			{15, "notice", true, 15 + window},
			{15 + window, "", false, -1},
		}},
		{"a long job is cut at YieldMax, then bulk searches run for YieldGap", []step{
			{0, "begin", true, limit},
			{limit, "", false, limit + gap},
			{limit + 10, "notice", false, limit + gap},
			{limit + gap, "", true, limit + gap + limit},
			{limit + gap + 30, "end", true, limit + gap + 30 + tail},
			{limit + gap + 30 + tail, "", false, -1},
		}},
		{"a stream of notices cannot hold the pause past YieldMax", []step{
			{0, "notice", true, window},
			{10, "notice", true, 10 + window},
			{limit - 5, "notice", true, limit},
			{limit, "", false, limit + gap},
			{limit + gap - 5, "notice", false, limit + gap},
			{limit + gap, "", true, limit + gap - 5 + window},
		}},
		{"a pause ending by itself leaves no gap", []step{
			{0, "notice", true, window},
			{window, "", false, -1},
			{window + 1, "notice", true, window + 1 + window},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := yieldState{limits: defaultYieldLimits}
			for i, st := range tt.steps {
				now := ms(st.at)
				switch st.event {
				case "notice":
					if u := now.Add(YieldWindow); u.After(s.until) {
						s.until = u
					}
				case "begin":
					s.active++
				case "end":
					s.active--
					if u := now.Add(YieldTail); u.After(s.until) {
						s.until = u
					}
				}
				paused, next := s.step(now)
				wantNext := time.Time{}
				if st.next >= 0 {
					wantNext = ms(st.next)
				}
				if paused != st.paused || !next.Equal(wantNext) {
					t.Fatalf("step %d (%d ms, %q): paused %v, next %v ms; want %v, %v ms", i, st.at, st.event,
						paused, next.Sub(t0).Milliseconds(), st.paused, st.next)
				}
			}
		})
	}
}

// fakePauser records the calls of a yielder.
type fakePauser struct {
	mu      sync.Mutex
	paused  bool
	pauses  int
	resumed chan struct{}
}

func (f *fakePauser) Pause() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.paused {
		panic("Pause while paused")
	}
	f.paused = true
	f.pauses++
}

func (f *fakePauser) Resume() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.paused {
		panic("Resume while running")
	}
	f.paused = false
	select {
	case f.resumed <- struct{}{}:
	default:
	}
}

func (f *fakePauser) state() (bool, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.paused, f.pauses
}

// TestYielderResumesOnItsOwn drives a yielder with real timers: a notice
// pauses at once, its timer resumes, and the statistics count it; a job
// running here holds the pause; close resumes and stops for good. The cut
// at YieldMax is lifted (TestYieldState covers it): on a loaded machine
// the test's own pause could outlast it, and the job would rightly be
// let go.
func TestYielderResumesOnItsOwn(t *testing.T) {
	f := &fakePauser{resumed: make(chan struct{}, 1)}
	limits := defaultYieldLimits
	limits.max = time.Hour
	y := newYielderWith(f, limits)
	waitResumed := func(what string) {
		t.Helper()
		select {
		case <-f.resumed:
		case <-time.After(time.Minute):
			t.Fatal(what)
		}
	}

	y.notice()
	if paused, n := f.state(); !paused || n != 1 {
		t.Fatalf("after a notice: paused %v, %d pauses; want a pause", paused, n)
	}
	waitResumed("the notice's pause did not end on its own")
	pauses, total := y.stats()
	if pauses != 1 || total < YieldWindow {
		t.Fatalf("stats: %d pauses, %v paused; want 1 and at least %v", pauses, total, YieldWindow)
	}

	end := y.begin()
	time.Sleep(2 * YieldWindow)
	if paused, _ := f.state(); !paused {
		t.Fatal("a running interactive job did not hold the pause")
	}
	end()
	waitResumed("the pause did not end after the job")

	end = y.begin()
	y.close()
	if paused, _ := f.state(); paused {
		t.Fatal("close left the bulk searches stopped")
	}
	end()
	y.notice()
	if paused, n := f.state(); paused || n != 3 {
		t.Fatalf("after close: paused %v, %d pauses; want 3 (none after close)", paused, n)
	}
}
