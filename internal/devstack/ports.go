package devstack

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
)

// loopback is the only address the servers listen on.
const loopback = "127.0.0.1"

// OnFreePort runs start on a free loopback port below the ephemeral range,
// for a server a test starts itself (pgbouncer, a Sentinel's Redis), as
// our own servers start: when start fails with ErrPortInUse (the server
// said "address already in use"), another port is tried (startOnPort).
func OnFreePort(start func(port int) error) error { return startOnPort(0, start) }

// freePort picks a free TCP port on the loopback address below the
// kernel's range of ephemeral ports, trying random ones, and asks the
// kernel for any free port only when that fails. The servers restart on
// their port (Restart, a crash test's kill and start): a port from the
// ephemeral range may by then be the local port of an outgoing
// connection of any process on the machine, and binding it fails with
// "address already in use" (a miniredis restart in CI did, while forty
// test packages held connections). Below the range no port is handed out
// unasked.
func freePort() (int, error) {
	if top := ephemeralStart() - 1; top > lowPort {
		for range 64 {
			port := lowPort + rand.IntN(top-lowPort+1)
			if l, err := net.Listen("tcp", hostPort(port)); err == nil {
				return port, l.Close()
			}
		}
	}
	l, err := net.Listen("tcp", net.JoinHostPort(loopback, "0"))
	if err != nil {
		return 0, fmt.Errorf("devstack: pick a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// lowPort is the lowest port freePort picks: above the ports services are
// usually configured on (PostgreSQL 5432, Redis 6379, 8080 and the like).
const lowPort = 20000

// ephemeralStart is the first port of the kernel's ephemeral range
// (Linux: /proc/sys/net/ipv4/ip_local_port_range), or 32768, Linux's
// default, where it cannot be read.
func ephemeralStart() int {
	data, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 32768
	}
	fields := strings.Fields(string(data))
	if len(fields) == 0 {
		return 32768
	}
	start, err := strconv.Atoi(fields[0])
	if err != nil {
		return 32768
	}
	return start
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

// startAttempts is how many free ports startOnPort tries.
const startAttempts = 3

// startOnPort runs start on port, or, when port is 0, on a free port,
// picking another one when start fails with ErrPortInUse: between
// freePort closing its probe and the server binding the port, a server
// of another test process may take it (a miniredis start in CI lost it
// so, with forty test packages picking ports at once).
func startOnPort(port int, start func(port int) error) error {
	var err error
	for range startAttempts {
		var chosen int
		if chosen, err = pickPort(port); err != nil {
			return err
		}
		err = start(chosen)
		if err == nil || port != 0 || !errors.Is(err, ErrPortInUse) {
			return err
		}
	}
	return err
}

// hostPort is "127.0.0.1:port".
func hostPort(port int) string { return net.JoinHostPort(loopback, itoa(port)) }

// itoa is strconv.Itoa, for addresses and arguments.
func itoa(n int) string { return strconv.Itoa(n) }
