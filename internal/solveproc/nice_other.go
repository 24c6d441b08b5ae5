//go:build !linux

package solveproc

import "fmt"

// SetNice is only implemented on Linux, where niceness is per thread; on
// other systems the child runs at the parent's priority.
func SetNice(n int) error {
	if n < 0 || n > 19 {
		return fmt.Errorf("solveproc: niceness %d out of 0–19", n)
	}
	return nil
}

// NameThreads does nothing outside Linux, where the child keeps the name
// of its executable.
func NameThreads(string) error { return nil }
