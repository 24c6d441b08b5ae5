package worker

import (
	"runtime"
	"syscall"
	"testing"
)

// threadNice is the calling thread's niceness. The raw getpriority system
// call returns 20 - nice, so that it is never negative.
func threadNice(t *testing.T) int {
	t.Helper()
	p, err := syscall.Getpriority(syscall.PRIO_PROCESS, syscall.Gettid())
	if err != nil {
		t.Fatal(err)
	}
	return 20 - p
}

func TestRunNiced(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	base := threadNice(t)
	if base != 0 {
		t.Skipf("the test runs at niceness %d already", base)
	}
	for _, tc := range []struct {
		name string
		nice int
		want int
	}{
		{"bulk", 5, 5},
		{"off", 0, base},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got int
			runNiced(tc.nice, func() { got = threadNice(t) })
			if got != tc.want {
				t.Errorf("niceness inside: %d, want %d", got, tc.want)
			}
			if now := threadNice(t); now != base {
				t.Errorf("caller's thread niceness %d after, want %d unchanged", now, base)
			}
		})
	}
}

func TestRunNicedPanics(t *testing.T) {
	defer func() {
		if p := recover(); p != "boom" {
			t.Errorf("recovered %v, want the panic of fn", p)
		}
	}()
	runNiced(5, func() { panic("boom") })
	t.Error("runNiced returned after a panic")
}
