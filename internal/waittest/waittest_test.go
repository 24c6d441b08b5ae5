package waittest

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// recorder is a testing.TB whose Fatalf records the message and ends the
// goroutine, as the real one does.
type recorder struct {
	testing.TB
	msg string
}

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(format string, args ...any) {
	r.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// run calls WaitFor on a goroutine of its own and returns the failure
// message, "" when it returned normally.
func run(timeout time.Duration, cond func() bool) string {
	r := &recorder{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		WaitFor(r, timeout, "the thing", cond)
	}()
	<-done
	return r.msg
}

func TestWaitFor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		holdsFrom int // cond is true from this call on; 0 = never
		wantFail  bool
		wantCalls int // exact calls when it holds; at least this many otherwise
	}{
		{name: "holds at once", holdsFrom: 1, wantCalls: 1},
		{name: "holds on the fourth call", holdsFrom: 4, wantCalls: 4},
		{name: "never holds", holdsFrom: 0, wantFail: true, wantCalls: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			calls := 0
			msg := run(300*time.Millisecond, func() bool {
				calls++
				return tc.holdsFrom > 0 && calls >= tc.holdsFrom
			})
			if failed := msg != ""; failed != tc.wantFail {
				t.Fatalf("failed = %v (%q), want %v", failed, msg, tc.wantFail)
			}
			if tc.wantFail && !strings.Contains(msg, "timed out after 300ms waiting for the thing") {
				t.Fatalf("message %q does not say what was awaited and how long", msg)
			}
			if tc.wantFail && calls < tc.wantCalls || !tc.wantFail && calls != tc.wantCalls {
				t.Fatalf("cond called %d times, want %d", calls, tc.wantCalls)
			}
		})
	}
}
