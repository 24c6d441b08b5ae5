package worker

import (
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// threadClock reads the CPU time of one OS thread — the one the goroutine
// that called lockThreadClock is locked to — so that any goroutine can
// tell how much CPU a search has used, whatever the machine's load made of
// the wall clock. It is the kernel's per-thread CPU clock: one
// clock_gettime, no file to open (reading /proc/…/schedstat per job cost a
// fifth of the worker's CPU on small levels).
type threadClock struct {
	id    int32
	start time.Duration
}

// lockThreadClock locks the calling goroutine to its OS thread and starts
// a clock of that thread's CPU time; unlock undoes the lock. ok is false
// (nothing locked) when the kernel does not report it.
func lockThreadClock() (c threadClock, unlock func(), ok bool) {
	runtime.LockOSThread()
	c.id = threadCPUClock(unix.Gettid())
	start, ok := c.read()
	if !ok {
		runtime.UnlockOSThread()
		return threadClock{}, func() {}, false
	}
	c.start = start
	return c, runtime.UnlockOSThread, true
}

// used is the CPU time the thread has run since the clock started.
func (c threadClock) used() (time.Duration, bool) {
	now, ok := c.read()
	return now - c.start, ok
}

func (c threadClock) read() (time.Duration, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(c.id, &ts); err != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}

// threadCPUClock is the clock id of a thread's CPU time, as glibc's
// pthread_getcpuclockid makes it (linux/posix-timers.h:
// MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED)).
func threadCPUClock(tid int) int32 {
	const sched, perThread = 2, 4
	return ^int32(tid)<<3 | sched | perThread
}
