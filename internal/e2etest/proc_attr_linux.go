package e2etest

import "syscall"

// procAttr puts a started process in a group of its own and has the kernel
// kill it when the test binary dies: a package that hits go test's timeout
// panics without running its cleanups, and its serve and work processes
// would otherwise live on (seen after a loaded CI run, still answering on
// their ports twenty minutes later).
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
