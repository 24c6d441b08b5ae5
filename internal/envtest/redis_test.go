package envtest

import (
	"context"
	"fmt"
	"sync"
	"testing"
)

func TestRedisAddrParallelTestsGetDistinctEmptyDBs(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	held := map[int]string{}
	for i := range 6 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			addr, db := RedisAddr(t)
			if db < firstLeaseDB || db > lastLeaseDB {
				t.Fatalf("db %d out of range", db)
			}
			mu.Lock()
			if other, dup := held[db]; dup {
				t.Errorf("DB %d given to both %s and %s", db, other, t.Name())
			}
			held[db] = t.Name()
			mu.Unlock()
			t.Cleanup(func() {
				mu.Lock()
				delete(held, db)
				mu.Unlock()
			})
			c := newClient(addr, db)
			defer c.Close()
			ctx := context.Background()
			if n, err := c.DBSize(ctx).Result(); err != nil || n != 0 {
				t.Fatalf("DB %d: size %d, %v; want empty", db, n, err)
			}
			if err := c.Set(ctx, "shared-name", t.Name(), 0).Err(); err != nil {
				t.Fatal(err)
			}
		})
	}
}
