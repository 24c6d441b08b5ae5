//go:build !linux

package worker

import "time"

// threadClock is not available here: sliced falls back on the wall clock.
type threadClock struct{}

func lockThreadClock() (threadClock, func(), bool) { return threadClock{}, func() {}, false }

func (threadClock) used() (time.Duration, bool) { return 0, false }
