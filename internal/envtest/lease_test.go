package envtest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/puzzled/puzzled/internal/devstack"
)

// Many holders (standing in for test processes: a lease is only its key on
// DB 0) compete for the 15 DBs: no DB ever has two holders, everyone gets one
// in the end, every DB is empty when handed out, and no lease key is left.
func TestLeaseUnderContention(t *testing.T) {
	t.Parallel()
	t.Run("redis-server", func(t *testing.T) {
		t.Parallel()
		testLeaseUnderContention(t, OwnRedis(t).Addr())
	})
	t.Run("miniredis", func(t *testing.T) {
		t.Parallel()
		r, err := devstack.StartRedis(t.Context(), devstack.RedisConfig{InProcess: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Stop(context.Background()) })
		testLeaseUnderContention(t, r.Addr())
	})
}

func testLeaseUnderContention(t *testing.T, addr string) {
	const holders = 40
	var (
		mu     sync.Mutex
		inUse  = map[int]string{}
		wg     sync.WaitGroup
		errs   = make(chan error, holders)
		maxNow int
	)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i := range holders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := fmt.Sprintf("holder-%d", i)
			l, err := acquireLease(ctx, addr, name)
			if err != nil {
				errs <- err
				return
			}
			mu.Lock()
			if other, dup := inUse[l.db]; dup {
				errs <- fmt.Errorf("DB %d held by %s and %s", l.db, other, name)
			}
			inUse[l.db] = name
			maxNow = max(maxNow, len(inUse))
			mu.Unlock()
			if n, err := l.data.DBSize(ctx).Result(); err != nil || n != 0 {
				errs <- fmt.Errorf("%s got DB %d with %d keys (%v)", name, l.db, n, err)
			}
			l.data.Set(ctx, "left-behind", name, 0) // release must flush it
			time.Sleep(20 * time.Millisecond)
			mu.Lock()
			delete(inUse, l.db)
			mu.Unlock()
			if err := l.release(); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if maxNow > lastLeaseDB-firstLeaseDB+1 {
		t.Errorf("%d DBs held at once", maxNow)
	}
	meta := newClient(addr, 0)
	defer meta.Close()
	if keys, err := meta.Keys(ctx, leaseKeyPrefix+"*").Result(); err != nil || len(keys) != 0 {
		t.Errorf("lease keys left: %v (%v)", keys, err)
	}
	for db := firstLeaseDB; db <= lastLeaseDB; db++ {
		c := newClient(addr, db)
		if n, err := c.DBSize(ctx).Result(); err != nil || n != 0 {
			t.Errorf("DB %d has %d keys after release (%v)", db, n, err)
		}
		c.Close()
	}
}

// When all DBs are leased, a new holder waits and gets the first one freed;
// it gives up with a clear error when its context ends.
func TestLeaseWaitsWhenAllTaken(t *testing.T) {
	t.Parallel()
	addr := OwnRedis(t).Addr()
	ctx := context.Background()
	var held []*lease
	for range lastLeaseDB - firstLeaseDB + 1 {
		l, err := acquireLease(ctx, addr, "filler")
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, l)
	}
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if _, err := acquireLease(short, addr, "impatient"); err == nil {
		t.Fatal("got a lease while all were taken")
	} else {
		t.Log(err)
	}

	got := make(chan *lease)
	go func() {
		l, err := acquireLease(ctx, addr, "patient")
		if err != nil {
			t.Error(err)
		}
		got <- l
	}()
	select {
	case <-got:
		t.Fatal("got a lease while all were taken")
	case <-time.After(150 * time.Millisecond):
	}
	freed := held[3]
	if err := freed.release(); err != nil {
		t.Fatal(err)
	}
	l := <-got
	if l == nil {
		t.FailNow()
	}
	if l.db != freed.db {
		t.Errorf("got DB %d, want the freed DB %d", l.db, freed.db)
	}
	held[3] = l
	for _, l := range held {
		if err := l.release(); err != nil {
			t.Error(err)
		}
	}
}

// A lease whose holder died (no renewals) frees itself after its TTL, and a
// lease taken over by someone else is reported at release, not deleted.
func TestLeaseExpiryAndTakeover(t *testing.T) {
	t.Parallel()
	addr := OwnRedis(t).Addr()
	ctx := context.Background()
	l, err := acquireLease(ctx, addr, "victim")
	if err != nil {
		t.Fatal(err)
	}
	// Someone else's lease replaces ours, as after an expiry.
	if err := l.meta.Set(ctx, l.key, "someone-else", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	l.mu.Lock()
	l.lost = true // what the next renewal would find
	l.mu.Unlock()
	if err := l.release(); err == nil {
		t.Error("release did not report the lost lease")
	}
	meta := newClient(addr, 0)
	defer meta.Close()
	if owner, err := meta.Get(ctx, l.key).Result(); err != nil || owner != "someone-else" {
		t.Errorf("release touched someone else's lease: %q, %v", owner, err)
	}
}
