package worker

import "syscall"

// setThreadNice raises the niceness of the calling thread only: on Linux,
// setpriority with PRIO_PROCESS and a thread id applies to that thread
// (setpriority(2), NOTES). Raising niceness needs no privilege.
func setThreadNice(nice int) error {
	return syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), nice)
}
