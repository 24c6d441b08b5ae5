package devstack

import "syscall"

// procAttr puts a child in a process group of its own, runs it as runAs, and
// has the kernel send it deathSignal when the thread that started it dies
// (which includes our process being killed by SIGKILL).
//
// Go applies Pdeathsig after switching credentials, and the kernel only
// clears it when the credentials change after that or a set-uid program is
// executed, so it survives the switch to the unprivileged user
// (TestPostgresDiesWithParent checks this).
func procAttr(runAs *account, deathSignal syscall.Signal) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{
		Setpgid:    true,
		Pdeathsig:  deathSignal,
		Credential: runAs.credential(),
	}
}
