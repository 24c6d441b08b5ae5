package devstack

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/alicebob/miniredis/v2"
)

// RedisConfig configures StartRedis.
type RedisConfig struct {
	// Dir is redis-server's working folder (dump.rdb, appendonly files). When
	// empty, a temporary folder is made and removed by Stop; Persist then
	// requires Dir.
	Dir string
	// Port is the TCP port on 127.0.0.1; 0 picks a free one.
	Port int
	// ExtraBind are addresses the server listens on besides 127.0.0.1
	// (a test's own network, say).
	ExtraBind []string
	// Persist turns on RDB snapshots and the append-only file, so that data
	// survives Restart. Without it the server keeps nothing on disk.
	Persist bool
	// ReadyTimeout bounds the wait for the server to answer PING;
	// 0 means DefaultReadyTimeout.
	ReadyTimeout time.Duration
	// Binary is the redis-server to run; "" searches PATH and the usual
	// folders. When none is found, an in-process miniredis is used instead.
	Binary string
	// InProcess forces the in-process miniredis even when redis-server exists.
	InProcess bool
	// Password, when set, is required from every client (AUTH). redis-server
	// reads it from a configuration file of mode 0600 in Dir, never from its
	// command line, which every local user can read.
	Password string
	// User is the unprivileged user the server runs as when we are root;
	// "" means "redis" when it exists, else "nobody".
	User string
	// Logger receives the server's log lines at debug level and lifecycle
	// events at info level; nil discards them.
	Logger *slog.Logger
}

// Redis is a redis-server child process, or an in-process miniredis when
// redis-server is not installed.
type Redis struct {
	cfg     RedisConfig
	binary  string // "" for miniredis
	major   int    // redis-server's major version, 0 when unknown
	runAs   *account
	tempDir bool // cfg.Dir was made by StartRedis and is removed by Stop

	mu   sync.Mutex
	port int
	proc *child
	mini *miniredis.Miniredis
}

// StartRedis starts redis-server (or miniredis) on 127.0.0.1 and waits until
// it answers PING.
func StartRedis(ctx context.Context, cfg RedisConfig) (*Redis, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	r := &Redis{cfg: cfg}
	if !cfg.InProcess {
		r.binary = findRedisServer(cfg.Binary)
	}
	if r.binary == "" {
		cfg.Logger.Info("redis-server not found, using in-process miniredis")
		if err := r.startMini(cfg.Port); err != nil {
			return nil, err
		}
		return r, nil
	}
	r.major = redisMajorVersion(r.binary)
	if r.runAs, err = resolveAccount(cfg.User, "redis"); err != nil {
		return nil, err
	}
	if err := r.prepareDir(); err != nil {
		return nil, err
	}
	if err := r.start(ctx, cfg.Port); err != nil {
		r.removeTempDir()
		return nil, err
	}
	return r, nil
}

func (cfg RedisConfig) withDefaults() (RedisConfig, error) {
	if cfg.Persist && cfg.Dir == "" {
		return cfg, fmt.Errorf("devstack: RedisConfig.Dir is required with Persist")
	}
	if cfg.Dir != "" {
		dir, err := filepath.Abs(cfg.Dir)
		if err != nil {
			return cfg, fmt.Errorf("devstack: redis folder %s: %w", cfg.Dir, err)
		}
		cfg.Dir = dir
	}
	if cfg.ReadyTimeout <= 0 {
		cfg.ReadyTimeout = DefaultReadyTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return cfg, nil
}

// prepareDir makes a temporary folder when none is configured and hands the
// folder to the server user.
func (r *Redis) prepareDir() error {
	if r.cfg.Dir == "" {
		dir, err := os.MkdirTemp("", "puzzled-redis-")
		if err != nil {
			return fmt.Errorf("devstack: temporary redis folder: %w", err)
		}
		r.cfg.Dir, r.tempDir = dir, true
	}
	if err := prepareDir(r.cfg.Dir, r.runAs); err != nil {
		r.removeTempDir()
		return err
	}
	return nil
}

func (r *Redis) removeTempDir() {
	if r.tempDir {
		os.RemoveAll(r.cfg.Dir)
	}
}

// Addr is "127.0.0.1:port", for redis.Options.Addr and asynq.RedisClientOpt.
func (r *Redis) Addr() string { return hostPort(r.Port()) }

// URL is "redis://127.0.0.1:port", with the password when one is set: for
// queue.RedisOpt and redis.ParseURL.
func (r *Redis) URL() string {
	u := url.URL{Scheme: "redis", Host: r.Addr()}
	if r.cfg.Password != "" {
		u.User = url.UserPassword("", r.cfg.Password)
	}
	return u.String()
}

// Password is the password clients must send, "" when none is required.
func (r *Redis) Password() string { return r.cfg.Password }

// Port is the TCP port the server listens on.
func (r *Redis) Port() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.port
}

// InProcess reports whether this is a miniredis rather than redis-server.
func (r *Redis) InProcess() bool { return r.binary == "" }

// PID is the process id of redis-server, or 0 when it is not running or
// this is a miniredis.
func (r *Redis) PID() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.proc == nil || !r.proc.running() {
		return 0
	}
	return r.proc.pid()
}

// Stop shuts the server down (redis-server saves first when Persist is on)
// and waits for it to exit; when ctx ends first it is killed. A temporary
// folder made by StartRedis is removed. Stop on a stopped server is a no-op.
func (r *Redis) Stop(ctx context.Context) error {
	err := r.halt(ctx)
	r.removeTempDir()
	return err
}

// halt stops the server but keeps its folder.
func (r *Redis) halt(ctx context.Context) error {
	r.mu.Lock()
	c, m := r.proc, r.mini
	r.proc = nil
	r.mu.Unlock()
	if m != nil {
		m.Close()
		return nil
	}
	if c == nil {
		return nil
	}
	err := c.stop(ctx, sigterm)
	r.cfg.Logger.Info("redis stopped", slog.String("addr", r.Addr()), slog.Int("pid", c.pid()))
	return err
}

// Kill ends redis-server with SIGKILL, like a crash (data since the last
// save is lost). For miniredis it closes the server, keeping its data.
func (r *Redis) Kill() {
	r.mu.Lock()
	c, m := r.proc, r.mini
	r.proc = nil
	r.mu.Unlock()
	switch {
	case m != nil:
		m.Close()
	case c != nil:
		c.kill()
	}
}

// Restart stops the server (when it runs) and starts it again on the same
// port. Without Persist, redis-server comes back empty; a miniredis keeps its
// data.
func (r *Redis) Restart(ctx context.Context) error {
	if r.InProcess() {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.mini.Close()
		if err := r.mini.Restart(); err != nil {
			return fmt.Errorf("devstack: restart miniredis on %s: %w", hostPort(r.port), err)
		}
		return nil
	}
	if err := r.halt(ctx); err != nil {
		return err
	}
	return r.start(ctx, r.Port())
}
