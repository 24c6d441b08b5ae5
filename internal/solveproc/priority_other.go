//go:build !linux

package solveproc

import (
	"os"
	"os/exec"
)

// SetPriority is only implemented on Linux, where policy and niceness are
// per thread; elsewhere a child runs at its parent's priority.
func SetPriority(Priority) error { return nil }

// NameThreads does nothing outside Linux, where the child keeps the name
// of its executable.
func NameThreads(string) error { return nil }

// pauseProcess does nothing outside Linux: Pool.Pause is a Linux feature.
func pauseProcess(*os.Process, bool) error { return nil }

// dieWithParent does nothing outside Linux, where a child notices its
// parent's end only by its stdin closing.
func dieWithParent(*exec.Cmd) {}
