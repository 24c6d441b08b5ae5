package solveproc

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// SetNice gives every thread of this process the niceness n (0–19). Linux
// keeps niceness per thread and a new thread starts with its creator's,
// so once every thread has it, so do the threads the Go runtime starts
// later. Two passes catch a thread started during the first one.
func SetNice(n int) error {
	if n < 0 || n > 19 {
		return fmt.Errorf("solveproc: niceness %d out of 0–19", n)
	}
	for range 2 {
		tasks, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return fmt.Errorf("solveproc: set niceness: %w", err)
		}
		for _, t := range tasks {
			tid, err := strconv.Atoi(t.Name())
			if err != nil {
				continue
			}
			// ESRCH: the thread ended meanwhile.
			if err := syscall.Setpriority(syscall.PRIO_PROCESS, tid, n); err != nil && err != syscall.ESRCH {
				return fmt.Errorf("solveproc: set niceness of thread %d: %w", tid, err)
			}
		}
	}
	return nil
}

// NameThreads sets the command name that ps and top show (comm, at most
// 15 bytes) of every thread of this process: a child started from
// /proc/self/exe would show as "exe". New threads take their creator's.
func NameThreads(name string) error {
	for range 2 {
		tasks, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return fmt.Errorf("solveproc: name threads: %w", err)
		}
		for _, t := range tasks {
			// A thread that ended meanwhile fails; that is fine.
			_ = os.WriteFile("/proc/self/task/"+t.Name()+"/comm", []byte(name), 0)
		}
	}
	return nil
}
