package devstack

import (
	"os/exec"
	"runtime"
	"sync"
)

// spawner starts every child from one goroutine locked to its OS thread for
// the life of the process.
//
// The kernel sends the parent-death signal when the *thread* that forked the
// child exits, not the process. Go may end a thread while the process lives
// on (a goroutine that exits while locked to its thread takes the thread
// with it), which would kill a server under a healthy process; a thread that
// never exits ties the signal to the process. The state is package-level
// because the thread must outlive every server.
var spawner struct {
	once sync.Once
	reqs chan func()
}

// startOnSpawner runs cmd.Start on the spawner thread.
func startOnSpawner(cmd *exec.Cmd) error {
	spawner.once.Do(func() {
		spawner.reqs = make(chan func())
		go func() {
			runtime.LockOSThread() // never unlocked: the thread lives as long as the process
			for f := range spawner.reqs {
				f()
			}
		}()
	})
	errc := make(chan error, 1)
	spawner.reqs <- func() { errc <- cmd.Start() }
	return <-errc
}
