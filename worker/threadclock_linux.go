package worker

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// threadClock reads the CPU time of one OS thread — the goroutine that
// locked it (lockThreadClock) — from /proc, so that any goroutine can
// tell how much CPU a search has used, whatever the machine's load made
// of the wall clock.
type threadClock struct {
	path  string
	start time.Duration
}

// lockThreadClock locks the calling goroutine to its OS thread and starts
// a clock of that thread's CPU time; unlock undoes the lock. ok is false
// (nothing locked) when the kernel does not report it.
func lockThreadClock() (c threadClock, unlock func(), ok bool) {
	runtime.LockOSThread()
	c.path = fmt.Sprintf("/proc/self/task/%d/schedstat", unix.Gettid())
	start, err := readOnCPU(c.path)
	if err != nil {
		runtime.UnlockOSThread()
		return threadClock{}, func() {}, false
	}
	c.start = start
	return c, runtime.UnlockOSThread, true
}

// used is the CPU time the thread has run since the clock started.
func (c threadClock) used() (time.Duration, bool) {
	now, err := readOnCPU(c.path)
	if err != nil {
		return 0, false
	}
	return now - c.start, true
}

// readOnCPU reads the first field of a schedstat file: nanoseconds on a
// CPU.
func readOnCPU(path string) (time.Duration, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	field, _, _ := strings.Cut(string(b), " ")
	ns, err := strconv.ParseInt(strings.TrimSpace(field), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	return time.Duration(ns), nil
}
