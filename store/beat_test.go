package store_test

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/puzzled/puzzled/internal/envtest"
	"github.com/puzzled/puzzled/store"
)

// A heartbeat stuck on its connection (packets lost, a server backend that
// no longer answers) must not fail the beats after it: the next beat runs
// on a new connection at once. With a pgxpool of one connection, the
// stuck connection kept the pool's only slot until its cleanup gave up,
// 15 s later, and every beat meanwhile failed; a worker then gave its
// tasks back for 20 s and more (issue 30).
func TestBeatAfterAStuckConnection(t *testing.T) {
	_, ctx, dbURL := setupURL(t)
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := envtest.NewProxy(t, u.Host)
	st, err := store.Open(ctx, proxy.ProxyURL(t, dbURL), store.OpenOpts{AsyncCommit: true, HeartbeatConn: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)

	beat := func(timeout time.Duration) error {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		return st.Beat(ctx, "w1", "host", 1, time.Second)
	}
	if err := beat(5 * time.Second); err != nil {
		t.Fatalf("first beat: %v", err)
	}
	proxy.Stall() // the heartbeat connection's packets are lost from now on
	if err := beat(300 * time.Millisecond); err == nil {
		t.Fatal("a beat on the stalled connection was written")
	}
	for i := range 3 {
		start := time.Now()
		if err := beat(2 * time.Second); err != nil {
			t.Fatalf("beat %d after the stuck one (%s): %v", i+1, time.Since(start).Round(time.Millisecond), err)
		}
	}
}
