package envtest

import (
	"context"
	"fmt"
	"os"
	"sync"

	"github.com/puzzled/puzzled/internal/devstack"
)

// shared holds the embedded servers of this test binary. It is package state
// because a test binary has one stack that all its tests share and that Run
// stops at the end.
var shared stack

// stack starts each embedded server once, on first use.
type stack struct {
	pgOnce sync.Once
	pg     *devstack.Postgres
	pgDir  string
	pgErr  error

	redisOnce sync.Once
	redis     *devstack.Redis
	redisDir  string
	redisErr  error

	mu   sync.Mutex
	left []leftDatabase // databases whose drop at cleanup failed
}

// leftDatabase is a test database to drop once the tests are done.
type leftDatabase struct{ admin, name string }

func (s *stack) leaveDatabase(admin, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.left = append(s.left, leftDatabase{admin, name})
}

// postgres starts the shared embedded PostgreSQL on first call.
func (s *stack) postgres() (*devstack.Postgres, error) {
	s.pgOnce.Do(func() {
		s.pg, s.pgDir, s.pgErr = startPostgres(context.Background())
		if s.pgErr != nil {
			s.pgErr = fmt.Errorf("embedded PostgreSQL (set %s to use another server): %w", EnvDatabaseURL, s.pgErr)
		}
	})
	return s.pg, s.pgErr
}

// redisServer starts the shared embedded Redis on first call.
func (s *stack) redisServer() (*devstack.Redis, error) {
	s.redisOnce.Do(func() {
		s.redis, s.redisDir, s.redisErr = startRedis(context.Background(), false)
		if s.redisErr != nil {
			s.redisErr = fmt.Errorf("embedded Redis (set %s to use another server): %w", EnvRedisAddr, s.redisErr)
		}
	})
	return s.redis, s.redisErr
}

// stop drops the databases left behind, stops whatever was started and
// removes its folders. What fails is reported, not a test failure.
func (s *stack) stop(ctx context.Context) {
	for _, d := range s.left {
		if err := dropDatabase(ctx, d.admin, d.name); err != nil {
			fmt.Fprintf(os.Stderr, "envtest: %v\n", err)
		}
	}
	if s.pg != nil {
		if err := s.pg.Stop(ctx); err != nil {
			fmt.Fprintf(os.Stderr, "envtest: stop embedded PostgreSQL: %v\n", err)
		}
		os.RemoveAll(s.pgDir)
	}
	if s.redis != nil {
		if err := s.redis.Stop(ctx); err != nil {
			fmt.Fprintf(os.Stderr, "envtest: stop embedded Redis: %v\n", err)
		}
		os.RemoveAll(s.redisDir)
	}
}

// startPostgres starts a throwaway PostgreSQL in a new temporary folder.
func startPostgres(ctx context.Context) (*devstack.Postgres, string, error) {
	dir, err := newTempDir("pg")
	if err != nil {
		return nil, "", err
	}
	pg, err := devstack.StartPostgres(ctx, postgresConfig(dir))
	if err != nil {
		os.RemoveAll(dir)
		return nil, "", err
	}
	return pg, dir, nil
}

// postgresConfig is the configuration of every PostgreSQL envtest starts.
func postgresConfig(dir string) devstack.PostgresConfig {
	return devstack.PostgresConfig{
		Dir:          dir,
		DisableFsync: true,
		InitCacheDir: initCacheDir(),
		Settings:     map[string]string{"max_connections": "200"},
	}
}

// startRedis starts a throwaway Redis in a new temporary folder.
func startRedis(ctx context.Context, persist bool, extraBind ...string) (*devstack.Redis, string, error) {
	dir, err := newTempDir("redis")
	if err != nil {
		return nil, "", err
	}
	r, err := devstack.StartRedis(ctx, devstack.RedisConfig{Dir: dir, ExtraBind: extraBind, Persist: persist})
	if err != nil {
		os.RemoveAll(dir)
		return nil, "", err
	}
	return r, dir, nil
}
