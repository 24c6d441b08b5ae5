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
