package worker

import (
	"testing"
	"time"
)

// The thread clock counts the CPU the locked thread burns, and not the
// time it waits.
func TestThreadClockCountsCPUNotWaiting(t *testing.T) {
	clock, unlock, ok := lockThreadClock()
	if !ok {
		t.Skip("no per-thread CPU clock on this system")
	}
	defer unlock()
	time.Sleep(50 * time.Millisecond)
	slept, _ := clock.used()
	for used, _ := clock.used(); used < slept+20*time.Millisecond; used, _ = clock.used() {
	}
	if slept >= 40*time.Millisecond {
		t.Fatalf("a 50 ms sleep counted %s of CPU", slept)
	}
}
