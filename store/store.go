// Package store is puzzled's PostgreSQL access layer (pgx/v5). Every SQL
// statement of the project lives here, one file per table or aggregate:
// levels, jobs, batches, results, checkpoints. PostgreSQL is the source of
// truth; Redis only carries work.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"github.com/puzzled/puzzled/migrations"
)

// ErrNotFound is returned when a job, batch or level does not exist.
var ErrNotFound = errors.New("not found")

// Store is a pool of connections to puzzled's database.
type Store struct {
	pool   *pgxpool.Pool
	direct *pgx.ConnConfig // what the Listener connects with (OpenOpts.DirectURL)
	// beats is the connection of a worker's heartbeats
	// (OpenOpts.HeartbeatConn); nil: they use pool.
	beats  *beatConn
	logger *slog.Logger

	// Background work (analyzeIfGrown, vacuumWhileNoAutovacuum): closing
	// is canceled by Close, which then waits for background.
	closing    context.Context
	stopAll    context.CancelFunc
	background sync.WaitGroup
	analyzing  atomic.Bool
}

// OpenOpts are the options of Open.
type OpenOpts struct {
	// AsyncCommit turns synchronous_commit off for every connection: a
	// commit returns before its WAL reaches disk. Workers use it: everything
	// they write (job starts, checkpoints, results) is recovered by a re-run
	// if a crash loses it, because a lost result leaves its job queued or
	// running and the dispatcher enqueues it again. The API keeps durable
	// commits: a job it accepted must never be lost.
	AsyncCommit bool
	// MaxConns sizes the pool (default 16). A worker needs one connection
	// per concurrent solve plus a few for its dispatcher and checkpoints;
	// pgxpool's own default (the number of CPUs) makes handlers queue.
	MaxConns int32
	// AppName is the application_name of every connection, so that an
	// operator reading pg_stat_activity sees which process holds which
	// connection (puzzled-serve, puzzled-work@host). A URL that sets
	// application_name itself wins.
	AppName string
	// TransactionPooler says that url reaches PostgreSQL through a pooler
	// in transaction mode (PgBouncer's pool_mode = transaction), which
	// hands each transaction to any of its server connections and passes
	// on only the startup parameters it knows. The pool then prepares no
	// named statements (pgx's cache_describe mode: each query is parsed
	// as the unnamed statement, its description cached here) and sends
	// no synchronous_commit: AsyncCommit is left to the pooler (see
	// docs/service.md).
	TransactionPooler bool
	// HeartbeatConn gives Beat a connection of its own, opened at the
	// first beat and kept for the store's life (beatConn): a worker's
	// heartbeats never wait behind its busy pool, nor for a connection
	// that a full connection table refuses (a live worker then looked dead
	// and its jobs ran twice, issue 30 item 6).
	HeartbeatConn bool
	// MaxConnIdle closes the pool's connections idle this long (pgxpool's
	// default: 30 minutes), so that a fleet's idle workers give the
	// connection table back.
	MaxConnIdle time.Duration
	// DirectURL reaches PostgreSQL itself, not through a transaction
	// pooler: the Listener's LISTEN needs a session of its own, which such
	// a pooler does not keep. Empty means url.
	DirectURL string
	// Logger receives what the store's background work has to say (nil:
	// nothing is logged).
	Logger *slog.Logger
	// VacuumIfNoAutovacuum: while PostgreSQL's autovacuum is off, the
	// store vacuums and analyzes its tables itself when autovacuum would
	// (store/vacuum.go). The API's store sets it; a short-lived command's
	// need not.
	VacuumIfNoAutovacuum bool
}

// Open connects to the database at url. It does not migrate; see [Migrate].
func Open(ctx context.Context, url string, opts OpenOpts) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("store: parse database url: %w", err)
	}
	cfg.MaxConns = 16
	if opts.MaxConns > 0 {
		cfg.MaxConns = opts.MaxConns
	}
	if opts.TransactionPooler {
		if opts.DirectURL == "" {
			return nil, errors.New("store: behind a transaction pooler, a direct database URL is needed for LISTEN and migrations")
		}
		cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeCacheDescribe
	} else if opts.AsyncCommit {
		cfg.ConnConfig.RuntimeParams["synchronous_commit"] = "off"
	}
	setAppName(cfg.ConnConfig, opts.AppName)
	direct := cfg.ConnConfig.Copy()
	if opts.DirectURL != "" {
		if direct, err = pgx.ParseConfig(opts.DirectURL); err != nil {
			return nil, fmt.Errorf("store: parse direct database url: %w", err)
		}
		setAppName(direct, opts.AppName)
	}
	if opts.MaxConnIdle > 0 {
		cfg.MaxConnIdleTime = opts.MaxConnIdle
	}
	var beats *beatConn
	if opts.HeartbeatConn {
		beats = &beatConn{config: cfg.ConnConfig.Copy()}
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("store: connect: %w", err)
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	closing, stopAll := context.WithCancel(context.WithoutCancel(ctx))
	s := &Store{pool: pool, direct: direct, beats: beats, logger: logger, closing: closing, stopAll: stopAll}
	if opts.VacuumIfNoAutovacuum {
		s.background.Add(1)
		go s.vacuumWhileNoAutovacuum()
	}
	return s, nil
}

// setAppName sets application_name unless the URL set it.
func setAppName(cfg *pgx.ConnConfig, name string) {
	if _, set := cfg.RuntimeParams["application_name"]; !set && name != "" {
		cfg.RuntimeParams["application_name"] = name
	}
}

// Close closes every connection.
func (s *Store) Close() {
	s.stopAll()
	s.background.Wait()
	s.pool.Close()
	if s.beats != nil {
		s.beats.close()
	}
}

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.pool.Ping(ctx); err != nil {
		return fmt.Errorf("store: ping: %w", err)
	}
	return nil
}

// Migrate applies every pending migration under a PostgreSQL advisory lock,
// so that several processes starting at once migrate exactly once. The lock
// is a session's: url must reach PostgreSQL itself, not a transaction
// pooler (OpenOpts.DirectURL).
func Migrate(ctx context.Context, url string, logger *slog.Logger) error {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return fmt.Errorf("store: parse database url: %w", err)
	}
	db := stdlib.OpenDB(*cfg.ConnConfig)
	defer db.Close()
	return migrateDB(ctx, db, logger)
}

func migrateDB(ctx context.Context, db *sql.DB, logger *slog.Logger) error {
	locker, err := lock.NewPostgresSessionLocker(lock.WithLockTimeout(1, 600)) // retry each second, up to 10 min
	if err != nil {
		return fmt.Errorf("store: migration lock: %w", err)
	}
	p, err := goose.NewProvider(goose.DialectPostgres, db, migrations.FS, goose.WithSessionLocker(locker))
	if err != nil {
		return fmt.Errorf("store: migrations: %w", err)
	}
	results, err := p.Up(ctx)
	if err != nil {
		return fmt.Errorf("store: migrate up: %w", err)
	}
	for _, r := range results {
		logger.Info("migration applied", slog.String("file", r.Source.Path), slog.Duration("took", r.Duration))
	}
	return nil
}
