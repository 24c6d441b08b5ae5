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
// Stall holds only the connections open at that moment (one stuck
// connection, new ones flow), Heal ends either and what was held flows on.
// Only the proxy's clients are cut; the rest of the test reaches the
// server directly.
type Proxy struct {
	Addr   string // host:port to connect to instead of the server
	target string

	mu        sync.Mutex
	healed    chan struct{} // nil while nothing is held; closed at Heal
	all       bool          // Cut: every connection is held
	stallFrom int           // Stall: the connections numbered below are held
	next      int           // the number of the next connection accepted
	closed    chan struct{}
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
			p.mu.Lock()
			id := p.next
			p.next++
			p.mu.Unlock()
			conns.Go(func() {
				if !p.pass(id) {
					return
				}
				server, err := net.Dial("tcp", target)
				if err != nil {
					client.Close()
					return
				}
				track(server)
				var both sync.WaitGroup
				both.Go(func() { p.copy(id, server, client) })
				both.Go(func() { p.copy(id, client, server) })
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
	p.all = true
}

// Stall stops what flows on the connections open now until Heal, as when
// a connection's packets are lost; connections opened after it flow.
func (p *Proxy) Stall() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.healed == nil {
		p.healed = make(chan struct{})
	}
	p.stallFrom = p.next
}

// Heal lets what Cut or Stall held flow again.
func (p *Proxy) Heal() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.healed != nil {
		close(p.healed)
		p.healed = nil
	}
	p.all, p.stallFrom = false, 0
}

// pass waits while connection id is held; false when the proxy is closed.
func (p *Proxy) pass(id int) bool {
	for {
		p.mu.Lock()
		healed := p.healed
		if !p.all && id >= p.stallFrom {
			healed = nil
		}
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

// copy forwards src to dst, holding each chunk read while connection id is
// held; it closes both when either side ends.
func (p *Proxy) copy(id int, dst, src net.Conn) {
	defer dst.Close()
	defer src.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if !p.pass(id) {
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
