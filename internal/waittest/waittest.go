// Package waittest is how tests wait for something to happen: poll a
// condition until it holds, failing the test after a timeout, instead of
// retyping a sleep loop or sleeping a guessed time.
package waittest

import (
	"testing"
	"time"
)

// Polling starts at minPoll and doubles up to maxPoll: quick answers for
// conditions that hold soon, little load for those that take seconds.
const (
	minPoll = 5 * time.Millisecond
	maxPoll = 100 * time.Millisecond
)

// WaitFor calls cond until it returns true, and fails the test with
// "timed out after <timeout> waiting for <what>" when timeout passes first.
// cond runs on the test's goroutine, so it may call t.Fatal itself (for an
// error that waiting cannot cure) and may keep what it saw in variables of
// the caller.
func WaitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for poll := minPoll; !cond(); poll = min(2*poll, maxPoll) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
			return
		}
		time.Sleep(poll)
	}
}
