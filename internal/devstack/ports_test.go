package devstack

import (
	"errors"
	"fmt"
	"net"
	"testing"
)

// TestFreePortBelowEphemeralRange: the ports picked for servers lie below
// the kernel's ephemeral range, so that no outgoing connection holds one
// when a server restarts on it, and they can be listened on.
func TestFreePortBelowEphemeralRange(t *testing.T) {
	t.Parallel()
	// Where the range starts at or below lowPort, freePort asks the
	// kernel: any port then, still one that can be listened on.
	lo, top := lowPort, ephemeralStart()
	if top <= lowPort {
		lo, top = 1, 65536
	}
	for range 20 {
		port, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		if port < lo || port >= top {
			t.Fatalf("port %d, want one in [%d, %d)", port, lo, top)
		}
		l, err := net.Listen("tcp", hostPort(port))
		if err != nil {
			t.Fatalf("port %d: %v", port, err)
		}
		l.Close()
	}
}

// TestStartOnPortPicksAnotherWhenTaken: a free port taken by another
// process before the server binds it costs a retry on another port, not
// the start; a port the caller chose is never swapped.
func TestStartOnPortPicksAnotherWhenTaken(t *testing.T) {
	t.Parallel()
	taken := fmt.Errorf("%w: someone else's", ErrPortInUse)
	tests := []struct {
		name      string
		port      int
		failures  int   // starts that fail with failWith before one works
		failWith  error // the error of those starts
		wantTries int
		wantErr   error
	}{
		{name: "free at once", failures: 0, wantTries: 1},
		{name: "taken once", failures: 1, failWith: taken, wantTries: 2},
		{name: "taken every time", failures: startAttempts, failWith: taken, wantTries: startAttempts, wantErr: ErrPortInUse},
		{name: "other error", failures: 1, failWith: ErrNotReady, wantTries: 1, wantErr: ErrNotReady},
		{name: "chosen port taken", port: 7, failures: 1, failWith: taken, wantTries: 1, wantErr: ErrPortInUse},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var ports []int
			err := startOnPort(tt.port, func(port int) error {
				ports = append(ports, port)
				if len(ports) <= tt.failures {
					return tt.failWith
				}
				return nil
			})
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if len(ports) != tt.wantTries {
				t.Fatalf("%d tries on %v, want %d", len(ports), ports, tt.wantTries)
			}
			if tt.port != 0 && ports[0] != tt.port {
				t.Fatalf("started on %d, want the chosen %d", ports[0], tt.port)
			}
		})
	}
}

// A miniredis whose port is held by another listener fails with
// ErrPortInUse, which startOnPort retries on.
func TestMiniredisPortInUse(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", hostPort(0))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	r := &Redis{cfg: RedisConfig{Logger: testLogger(t)}}
	err = r.startMiniOn(l.Addr().(*net.TCPAddr).Port)
	if !errors.Is(err, ErrPortInUse) {
		t.Fatalf("got %v, want ErrPortInUse", err)
	}
}
