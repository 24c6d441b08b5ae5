package envtest

import (
	"context"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// childMarker is set in the test processes TestEnvServersAcrossProcesses runs.
const childMarker = "PUZZLED_TESTENV_CHILD"

// Two test processes at once, both pointed at the same servers through
// PUZZLED_TEST_DATABASE_URL and PUZZLED_TEST_REDIS_ADDR: each runs the
// parallel isolation tests and TestChildUsesEnvServers; the Redis leases must
// keep them apart, and nothing may be left on the servers afterwards.
func TestEnvServersAcrossProcesses(t *testing.T) {
	if os.Getenv(childMarker) != "" {
		return
	}
	t.Parallel()
	pg, r := OwnPostgres(t), OwnRedis(t)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.count=1",
				"-test.run=^(TestRedisAddrParallelTestsGetDistinctEmptyDBs|TestPostgresURLParallelTestsGetDistinctEmptyDatabases|TestChildUsesEnvServers)$")
			cmd.Env = append(os.Environ(), childMarker+"=1",
				EnvDatabaseURL+"="+pg.URLFor("postgres"), EnvRedisAddr+"="+r.Addr())
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("child test process: %v\n%s", err, out)
			}
		}()
	}
	wg.Wait()

	ctx := context.Background()
	var leftDBs int
	err := connect(t, pg.URLFor("postgres")).QueryRow(ctx,
		"SELECT count(*) FROM pg_database WHERE datname LIKE 'test\\_%'").Scan(&leftDBs)
	if err != nil || leftDBs != 0 {
		t.Errorf("%d test databases left (%v)", leftDBs, err)
	}
	meta := newClient(r.Addr(), 0)
	defer meta.Close()
	if keys, err := meta.Keys(ctx, leaseKeyPrefix+"*").Result(); err != nil || len(keys) != 0 {
		t.Errorf("lease keys left: %v (%v)", keys, err)
	}
}

// TestChildUsesEnvServers runs only inside TestEnvServersAcrossProcesses.
func TestChildUsesEnvServers(t *testing.T) {
	if os.Getenv(childMarker) == "" {
		return
	}
	got, err := url.Parse(PostgresURL(t))
	want, _ := url.Parse(os.Getenv(EnvDatabaseURL))
	if err != nil || got.Host != want.Host || !strings.HasPrefix(got.Path, "/test_") {
		t.Errorf("URL %s is not a test database on %s (%v)", got, want, err)
	}
	addr, _ := RedisAddr(t)
	if addr != os.Getenv(EnvRedisAddr) {
		t.Errorf("Redis %s, want %s", addr, os.Getenv(EnvRedisAddr))
	}
	if shared.pg != nil || shared.redis != nil {
		t.Error("an embedded server was started although the environment names servers")
	}
}
