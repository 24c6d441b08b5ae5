package devstack

import (
	"net"
	"testing"
)

// TestFreePortBelowEphemeralRange: the ports picked for servers lie below
// the kernel's ephemeral range, so that no outgoing connection holds one
// when a server restarts on it, and they can be listened on.
func TestFreePortBelowEphemeralRange(t *testing.T) {
	t.Parallel()
	top := ephemeralStart()
	if top <= lowPort {
		t.Skipf("the ephemeral range starts at %d, at or below %d: freePort asks the kernel", top, lowPort)
	}
	for range 20 {
		port, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		if port < lowPort || port >= top {
			t.Fatalf("port %d, want one in [%d, %d)", port, lowPort, top)
		}
		l, err := net.Listen("tcp", hostPort(port))
		if err != nil {
			t.Fatalf("port %d: %v", port, err)
		}
		l.Close()
	}
}
