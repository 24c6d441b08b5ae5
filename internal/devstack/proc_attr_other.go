//go:build unix && !linux

package devstack

import "syscall"

// procAttr puts a child in a process group of its own and runs it as runAs.
// Outside Linux there is no parent-death signal: a server outlives a process
// that is killed with SIGKILL, and the next start waits for it or fails with
// ErrStillRunning / ErrPortInUse.
func procAttr(runAs *account, _ syscall.Signal) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{
		Setpgid:    true,
		Credential: runAs.credential(),
	}
}
