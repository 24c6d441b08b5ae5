package devstack

import (
	"fmt"
	"net"
	"strconv"
)

// loopback is the only address the servers listen on.
const loopback = "127.0.0.1"

// freePort asks the kernel for a free TCP port on the loopback address.
func freePort() (int, error) {
	l, err := net.Listen("tcp", net.JoinHostPort(loopback, "0"))
	if err != nil {
		return 0, fmt.Errorf("devstack: pick a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// checkPortFree fails with ErrPortInUse when port cannot be bound on loopback.
func checkPortFree(port int) error {
	l, err := net.Listen("tcp", hostPort(port))
	if err != nil {
		return fmt.Errorf("%w: %s:%d (choose another port, or 0 for a free one): %w", ErrPortInUse, loopback, port, err)
	}
	return l.Close()
}

// pickPort returns port when it is set and free, or a free port when it is 0.
func pickPort(port int) (int, error) {
	if port == 0 {
		return freePort()
	}
	if err := checkPortFree(port); err != nil {
		return 0, err
	}
	return port, nil
}

// hostPort is "127.0.0.1:port".
func hostPort(port int) string { return net.JoinHostPort(loopback, itoa(port)) }

// itoa is strconv.Itoa, for addresses and arguments.
func itoa(n int) string { return strconv.Itoa(n) }
