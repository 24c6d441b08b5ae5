package devstack

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"path/filepath"
	"sort"
	"sync"
	"syscall"
	"time"
)

// Defaults of PostgresConfig.
const (
	DefaultDatabase     = "puzzled"
	DefaultReadyTimeout = 30 * time.Second
	// SuperUser is the superuser that initdb creates.
	SuperUser = "postgres"
)

// PostgresConfig configures StartPostgres.
type PostgresConfig struct {
	// Dir is the data folder (PGDATA). initdb runs when it holds no cluster yet;
	// an existing cluster is reused, so data survives restarts.
	Dir string
	// Port is the TCP port on 127.0.0.1; 0 picks a free one.
	Port int
	// Database is created when missing; "" means DefaultDatabase.
	Database string
	// DisableFsync turns off fsync, synchronous_commit and full_page_writes
	// (and initdb's syncing). Fast, but a machine crash can corrupt the data:
	// for throwaway test data only, never for `puzzled dev` data.
	DisableFsync bool
	// InitCacheDir, when set, keeps one initdb result per postgres binary and
	// initdb options, and a first start copies it instead of running initdb
	// (several times faster: a file copy instead of bootstrapping). For tests;
	// shared safely between processes. Its parent folders must let the server
	// user through, or the cache is skipped with a warning.
	InitCacheDir string
	// Password, when set, is SuperUser's password and every connection must
	// give it (SCRAM); otherwise connections from 127.0.0.1 are trusted. A
	// cluster made without a password gets this one on its next start. Not
	// combined with InitCacheDir (the cache holds password-less clusters).
	Password string
	// Settings are extra server settings, passed as `-c name=value`.
	Settings map[string]string
	// ReadyTimeout bounds the wait for the server to accept connections;
	// 0 means DefaultReadyTimeout.
	ReadyTimeout time.Duration
	// BinDir is the folder holding initdb and postgres; "" searches PATH,
	// /usr/lib/postgresql/*/bin and `pg_config --bindir`.
	BinDir string
	// User is the unprivileged user the server runs as when we are root;
	// "" means "postgres" when it exists, else "nobody".
	User string
	// Logger receives the server's log lines at debug level and lifecycle
	// events at info level; nil discards them.
	Logger *slog.Logger
}

// Postgres is a PostgreSQL server running as a child process.
type Postgres struct {
	cfg   PostgresConfig
	bins  pgBinaries
	runAs *account

	mu   sync.Mutex
	port int
	proc *child
}

// StartPostgres starts a PostgreSQL server in cfg.Dir and waits until the
// configured database accepts connections.
func StartPostgres(ctx context.Context, cfg PostgresConfig) (*Postgres, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	p := &Postgres{cfg: cfg}
	if p.bins, err = findPostgres(cfg.BinDir); err != nil {
		return nil, err
	}
	if p.runAs, err = resolveAccount(cfg.User, "postgres"); err != nil {
		return nil, err
	}
	if cfg.Port != 0 { // fail before a slow initdb
		if err := checkPortFree(cfg.Port); err != nil {
			return nil, err
		}
	}
	if err := prepareDir(cfg.Dir, p.runAs); err != nil {
		return nil, err
	}
	if err := p.initdb(ctx); err != nil {
		return nil, err
	}
	if err := p.start(ctx, cfg.Port); err != nil {
		return nil, err
	}
	if err := p.requirePassword(ctx); err != nil {
		_ = p.Stop(context.Background())
		return nil, err
	}
	if err := p.ensureDatabase(ctx, cfg.Database); err != nil {
		_ = p.Stop(context.Background())
		return nil, err
	}
	return p, nil
}

func (cfg PostgresConfig) withDefaults() (PostgresConfig, error) {
	if cfg.Dir == "" {
		return cfg, fmt.Errorf("devstack: PostgresConfig.Dir is required")
	}
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return cfg, fmt.Errorf("devstack: data folder %s: %w", cfg.Dir, err)
	}
	cfg.Dir = dir
	if cfg.Database == "" {
		cfg.Database = DefaultDatabase
	}
	if cfg.ReadyTimeout <= 0 {
		cfg.ReadyTimeout = DefaultReadyTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return cfg, nil
}

// start runs the server on port (0 = a free one, retried when another
// process grabs it first) and waits until it is ready.
func (p *Postgres) start(ctx context.Context, port int) error {
	if err := waitStaleGone(ctx, p.cfg.Dir, p.cfg.ReadyTimeout); err != nil {
		return err
	}
	return startOnPort(port, func(port int) error { return p.startOn(ctx, port) })
}

// startOn starts the server on port and waits for it.
func (p *Postgres) startOn(ctx context.Context, port int) error {
	began := time.Now()
	c, err := startChild(childSpec{
		name:        "postgres",
		path:        p.bins.postgres,
		args:        p.serverArgs(port),
		runAs:       p.runAs,
		deathSignal: syscall.SIGQUIT,
		logger:      p.cfg.Logger,
	})
	if err != nil {
		return err
	}
	if err := p.waitReady(ctx, c, port); err != nil {
		c.kill()
		return err
	}
	p.mu.Lock()
	p.proc, p.port = c, port
	p.mu.Unlock()
	p.cfg.Logger.Info("postgres started",
		slog.String("dir", p.cfg.Dir), slog.Int("port", port), slog.Int("pid", c.pid()),
		slog.Duration("took", time.Since(began)))
	return nil
}

// serverArgs are the postgres command-line arguments.
func (p *Postgres) serverArgs(port int) []string {
	settings := map[string]string{
		"listen_addresses":        loopback,
		"unix_socket_directories": "",
		"logging_collector":       "off",
	}
	if p.cfg.DisableFsync {
		settings["fsync"] = "off"
		settings["synchronous_commit"] = "off"
		settings["full_page_writes"] = "off"
	}
	for k, v := range p.cfg.Settings {
		settings[k] = v
	}
	args := []string{"-D", p.cfg.Dir, "-p", itoa(port)}
	names := make([]string, 0, len(settings))
	for k := range settings {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		args = append(args, "-c", k+"="+settings[k])
	}
	return args
}

// URL is the pgx connection URL of the configured database.
func (p *Postgres) URL() string { return p.URLFor(p.cfg.Database) }

// URLFor is the pgx connection URL of database on this server, as the
// superuser (with its password when one is set).
func (p *Postgres) URLFor(database string) string { return p.urlOn(p.Port(), database) }

// Password is the superuser's password, "" when connections are trusted.
func (p *Postgres) Password() string { return p.cfg.Password }

// urlOn is the URL of database on the local server at port.
func (p *Postgres) urlOn(port int, database string) string {
	user := url.User(SuperUser)
	if p.cfg.Password != "" {
		user = url.UserPassword(SuperUser, p.cfg.Password)
	}
	return postgresURL(port, database, user)
}

// postgresURL is the URL of database on the local server at port.
func postgresURL(port int, database string, user *url.Userinfo) string {
	u := url.URL{
		Scheme:   "postgres",
		User:     user,
		Host:     hostPort(port),
		Path:     "/" + database,
		RawQuery: "sslmode=disable",
	}
	return u.String()
}

// Port is the TCP port the server listens on.
func (p *Postgres) Port() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.port
}

// PID is the process id of the postmaster (also its process group id), or 0
// when the server is not running.
func (p *Postgres) PID() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.proc == nil || !p.proc.running() {
		return 0
	}
	return p.proc.pid()
}

// Stop shuts the server down with a fast shutdown (open sessions are ended,
// a checkpoint is written) and waits for every server process to exit. When
// ctx ends first the process group is killed. Stop on a stopped server is a
// no-op.
func (p *Postgres) Stop(ctx context.Context) error {
	p.mu.Lock()
	c := p.proc
	p.proc = nil
	p.mu.Unlock()
	if c == nil {
		return nil
	}
	err := c.stop(ctx, syscall.SIGINT)
	p.cfg.Logger.Info("postgres stopped", slog.String("dir", p.cfg.Dir), slog.Int("pid", c.pid()))
	return err
}

// Kill sends SIGKILL to the server's whole process group and waits for it to
// be gone, like a machine crash would. The data folder keeps its stale
// postmaster.pid; Restart recovers from it.
func (p *Postgres) Kill() {
	p.mu.Lock()
	c := p.proc
	p.proc = nil
	p.mu.Unlock()
	if c != nil {
		c.kill()
	}
	// A backend killed with the group may still be exiting after the
	// postmaster is gone (it holds no output pipe, so kill did not wait
	// for it); wait, bounded, until no process works in the data folder.
	for deadline := time.Now().Add(5 * time.Second); len(processesIn(p.cfg.Dir)) > 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
}

// Restart stops the server (when it runs) and starts it again on the same
// port with the same data folder.
func (p *Postgres) Restart(ctx context.Context) error {
	if err := p.Stop(ctx); err != nil {
		return err
	}
	return p.start(ctx, p.Port())
}
