//go:build !linux

package worker

// setThreadNice does nothing where threads have no niceness of their own.
func setThreadNice(int) error { return nil }
