//go:build !linux

package solveproc

// SetPriority is only implemented on Linux, where policy and niceness are
// per thread; elsewhere a child runs at its parent's priority.
func SetPriority(Priority) error { return nil }

// NameThreads does nothing outside Linux, where the child keeps the name
// of its executable.
func NameThreads(string) error { return nil }
