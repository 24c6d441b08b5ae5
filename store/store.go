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
	pool *pgxpool.Pool
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
	if opts.AsyncCommit {
		cfg.ConnConfig.RuntimeParams["synchronous_commit"] = "off"
	}
	if _, set := cfg.ConnConfig.RuntimeParams["application_name"]; !set && opts.AppName != "" {
		cfg.ConnConfig.RuntimeParams["application_name"] = opts.AppName
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("store: connect: %w", err)
	}
	return &Store{pool: pool}, nil
}

// Close closes every connection.
func (s *Store) Close() { s.pool.Close() }

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.pool.Ping(ctx); err != nil {
		return fmt.Errorf("store: ping: %w", err)
	}
	return nil
}

// Migrate applies every pending migration under a PostgreSQL advisory lock,
// so that several processes starting at once migrate exactly once.
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
