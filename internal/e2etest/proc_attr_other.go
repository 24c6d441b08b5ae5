//go:build unix && !linux

package e2etest

import "syscall"

// procAttr puts a started process in a group of its own. Outside Linux there
// is no parent-death signal: a test binary that dies without its cleanups
// leaves its processes behind.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
