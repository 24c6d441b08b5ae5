package solveproc

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// SetPriority gives every thread of this process the priority p. Linux
// keeps the scheduling policy and niceness per thread and a new thread
// starts with its creator's, so once every thread has it, so do the
// threads the Go runtime starts later. Two passes catch a thread started
// during the first one.
func SetPriority(p Priority) error {
	if !p.Idle && (p.Nice < 0 || p.Nice > 19) {
		return fmt.Errorf("solveproc: niceness %d out of 0–19", p.Nice)
	}
	return eachThread(func(tid int) error {
		if p.Idle {
			attr := unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_IDLE}
			return unix.SchedSetAttr(tid, &attr, 0)
		}
		return syscall.Setpriority(syscall.PRIO_PROCESS, tid, p.Nice)
	})
}

// pauseProcess stops or continues a child process.
func pauseProcess(p *os.Process, stop bool) error {
	if stop {
		return p.Signal(syscall.SIGSTOP)
	}
	return p.Signal(syscall.SIGCONT)
}

// dieWithParent has the kernel kill the child when the thread that starts
// it dies, which includes this process being killed. A child notices
// its parent's end by its stdin closing, but a child stopped by Pause
// reads nothing. (Go threads outlive the goroutines they run unless one
// locks a thread and exits; the worker starts children from no such
// goroutine. A child killed otherwise fails one solve, which is retried.)
func dieWithParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}

// NameThreads sets the command name that ps and top show (comm, at most
// 15 bytes) of every thread of this process: a child started from
// /proc/self/exe would show as "exe". New threads take their creator's.
func NameThreads(name string) error {
	return eachThread(func(tid int) error {
		return os.WriteFile("/proc/self/task/"+strconv.Itoa(tid)+"/comm", []byte(name), 0)
	})
}

// eachThread calls f for every thread of this process, twice over; a
// thread that ended meanwhile is no error.
func eachThread(f func(tid int) error) error {
	for range 2 {
		tasks, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return fmt.Errorf("solveproc: threads: %w", err)
		}
		for _, t := range tasks {
			tid, err := strconv.Atoi(t.Name())
			if err != nil {
				continue
			}
			if err := f(tid); err != nil && !errors.Is(err, syscall.ESRCH) && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("solveproc: thread %d: %w", tid, err)
			}
		}
	}
	return nil
}
