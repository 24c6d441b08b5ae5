package envtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	mathrand "math/rand/v2"
	"os"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// Redis DB leases: key leaseKeyPrefix+<n> on DB 0 holds the owner of DB n.
const (
	leaseKeyPrefix = "puzzled:testlease:"
	firstLeaseDB   = 1
	lastLeaseDB    = 15
	// leaseTTL is how long a lease outlives a process that died holding it.
	leaseTTL = 60 * time.Second
	// leaseRenew is how often a held lease is extended back to leaseTTL.
	leaseRenew = leaseTTL / 3
)

// renewScript extends the lease only while we still own it.
var renewScript = redis.NewScript(`
if redis.call("GET", KEYS[1]) == ARGV[1] then
	return redis.call("PEXPIRE", KEYS[1], ARGV[2])
end
return 0`)

// releaseScript deletes the lease only while we still own it.
var releaseScript = redis.NewScript(`
if redis.call("GET", KEYS[1]) == ARGV[1] then
	return redis.call("DEL", KEYS[1])
end
return 0`)

// lease is one DB index held by this process.
type lease struct {
	db    int
	key   string
	owner string
	meta  *redis.Client // DB 0, where the lease keys live
	data  *redis.Client // the leased DB

	stop chan struct{}
	done chan struct{}
	mu   sync.Mutex
	lost bool // a renewal found the key gone or owned by someone else
}

// acquireLease takes a free DB index on the server at addr, waiting while all
// are taken, and empties it.
func acquireLease(ctx context.Context, addr, holder string) (*lease, error) {
	meta := newClient(addr, 0)
	owner := leaseOwner(holder)
	n := lastLeaseDB - firstLeaseDB + 1
	for {
		start := mathrand.IntN(n)
		for i := range n {
			db := firstLeaseDB + (start+i)%n
			key := fmt.Sprintf("%s%d", leaseKeyPrefix, db)
			ok, err := meta.SetNX(ctx, key, owner, leaseTTL).Result()
			if err != nil && ctx.Err() != nil {
				break // waited too long: report it below
			}
			if err != nil {
				meta.Close()
				return nil, fmt.Errorf("lease a DB on %s: %w", addr, err)
			}
			if ok {
				return startLease(ctx, meta, addr, db, key, owner)
			}
		}
		select {
		case <-ctx.Done():
			meta.Close()
			return nil, fmt.Errorf("all Redis DBs %d..%d on %s stayed leased by other tests (keys %s*): %w",
				firstLeaseDB, lastLeaseDB, addr, leaseKeyPrefix, ctx.Err())
		case <-time.After(time.Duration(20+mathrand.IntN(80)) * time.Millisecond):
		}
	}
}

// leaseOwner identifies this lease holder across processes and hosts.
func leaseOwner(holder string) string {
	host, _ := os.Hostname()
	var b [6]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%s/%d/%s/%s", host, os.Getpid(), hex.EncodeToString(b[:]), holder)
}

// startLease flushes the leased DB and starts renewing the lease.
func startLease(ctx context.Context, meta *redis.Client, addr string, db int, key, owner string) (*lease, error) {
	l := &lease{db: db, key: key, owner: owner, meta: meta, data: newClient(addr, db),
		stop: make(chan struct{}), done: make(chan struct{})}
	if err := l.data.FlushDB(ctx).Err(); err != nil {
		releaseScript.Run(context.WithoutCancel(ctx), meta, []string{key}, owner)
		l.data.Close()
		meta.Close()
		return nil, fmt.Errorf("flush leased Redis DB %d on %s (does the server have 16 databases?): %w", db, addr, err)
	}
	go l.renew()
	return l, nil
}

// renew extends the lease every leaseRenew until release.
func (l *lease) renew() {
	defer close(l.done)
	tick := time.NewTicker(leaseRenew)
	defer tick.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-tick.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		n, err := renewScript.Run(ctx, l.meta, []string{l.key}, l.owner, leaseTTL.Milliseconds()).Int()
		cancel()
		if err == nil && n == 0 {
			l.mu.Lock()
			l.lost = true
			l.mu.Unlock()
		}
	}
}

// release stops renewing, flushes the DB and gives the lease back.
func (l *lease) release() error {
	close(l.stop)
	<-l.done
	defer l.meta.Close()
	defer l.data.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var errs []error
	l.mu.Lock()
	if l.lost {
		errs = append(errs, fmt.Errorf("the lease on Redis DB %d expired while the test held it (was the process paused for over %s?)", l.db, leaseTTL))
	}
	l.mu.Unlock()
	if err := l.data.FlushDB(ctx).Err(); err != nil {
		errs = append(errs, fmt.Errorf("flush Redis DB %d: %w", l.db, err))
	}
	if err := releaseScript.Run(ctx, l.meta, []string{l.key}, l.owner).Err(); err != nil {
		errs = append(errs, fmt.Errorf("release lease on Redis DB %d: %w", l.db, err))
	}
	return errors.Join(errs...)
}
