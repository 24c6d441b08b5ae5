package envtest

import (
	"net"
	"net/url"
	"sync"
	"testing"
)

// Proxy forwards TCP connections to a server, for a test that cuts one
// client off from it: Cut is a partition (nothing flows either way, open
// connections stay open and new ones hang, as when packets are dropped),
// Heal ends it and what was held flows on. Only the proxy's clients are
// cut; the rest of the test reaches the server directly.
type Proxy struct {
	Addr   string // host:port to connect to instead of the server
	target string

	mu     sync.Mutex
	healed chan struct{} // nil while not cut; closed at Heal
	closed chan struct{}
}

// NewProxy starts a proxy to target (host:port) that the test's cleanup
// stops.
func NewProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{Addr: ln.Addr().String(), target: target, closed: make(chan struct{})}
	var conns sync.WaitGroup
	var mu sync.Mutex
	var open []net.Conn
	track := func(c net.Conn) {
		mu.Lock()
		defer mu.Unlock()
		open = append(open, c)
	}
	t.Cleanup(func() {
		close(p.closed)
		ln.Close()
		mu.Lock()
		for _, c := range open {
			c.Close()
		}
		mu.Unlock()
		conns.Wait()
	})
	go func() {
		for {
			client, err := ln.Accept()
			if err != nil {
				return
			}
			track(client)
			conns.Go(func() {
				if !p.pass() {
					return
				}
				server, err := net.Dial("tcp", target)
				if err != nil {
					client.Close()
					return
				}
				track(server)
				var both sync.WaitGroup
				both.Go(func() { p.copy(server, client) })
				both.Go(func() { p.copy(client, server) })
				both.Wait()
			})
		}
	}()
	return p
}

// ProxyURL is url (a PostgreSQL URL) with its host and port replaced by
// the proxy's.
func (p *Proxy) ProxyURL(t testing.TB, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	u.Host = p.Addr
	return u.String()
}

// Cut stops everything flowing through the proxy until Heal.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.healed == nil {
		p.healed = make(chan struct{})
	}
}

// Heal lets what Cut held flow again.
func (p *Proxy) Heal() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.healed != nil {
		close(p.healed)
		p.healed = nil
	}
}

// pass waits while the proxy is cut; false when it is closed.
func (p *Proxy) pass() bool {
	for {
		p.mu.Lock()
		healed := p.healed
		p.mu.Unlock()
		if healed == nil {
			return true
		}
		select {
		case <-healed:
		case <-p.closed:
			return false
		}
	}
}

// copy forwards src to dst, holding each chunk read while the proxy is
// cut; it closes both when either side ends.
func (p *Proxy) copy(dst, src net.Conn) {
	defer dst.Close()
	defer src.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if !p.pass() {
				return
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}
