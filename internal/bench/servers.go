package bench

import (
	"context"
	"flag"
	"log/slog"
	"net/http"
	"time"

	"github.com/puzzled/puzzled/api"
	"github.com/puzzled/puzzled/queue"
	"github.com/puzzled/puzzled/store"
)

// Config is the configuration of the servers a bench runs: the fields of
// the puzzled command's configuration that the bench commands set.
type Config struct {
	DatabaseURL      string
	DirectURL        string // as --direct-database-url
	Pooler           string // as --database-pooler
	RedisAddr        string
	RedisDB          int
	Concurrency      int           // bulk worker slots
	InteractiveSlots int           // reserved interactive slots
	InteractivePoll  time.Duration // their idle poll
	CheckpointEvery  time.Duration
	StaleAfter       time.Duration
	BulkPriority     string // of the bulk solve processes, as --bulk-priority
	BulkYield        bool
	LogLevel         string
	Limits           api.Limits
}

// databaseFlags declares --database-url and how it reaches PostgreSQL.
func databaseFlags(fs *flag.FlagSet, cfg *Config, what string) {
	fs.StringVar(&cfg.DatabaseURL, "database-url", "", "PostgreSQL URL of "+what+" (default: embedded)")
	fs.StringVar(&cfg.Pooler, "database-pooler", "none", `what --database-url goes through: "none" or "transaction" (PgBouncer in transaction mode; needs --direct-database-url), as for serve and work`)
	fs.StringVar(&cfg.DirectURL, "direct-database-url", "", "URL of the same database not through a transaction pooler, for migrations and LISTEN (default: --database-url)")
}

// Servers is what the bench commands take from the puzzled command: its
// servers, wired as `serve`, `work` and `dev` wire them, so that a bench
// measures what runs in production.
type Servers struct {
	// Logger is the command's logger at level.
	Logger func(level string) (*slog.Logger, error)
	// BulkFlags declares --bulk-priority and --bulk-yield, as `work` has them.
	BulkFlags func(fs *flag.FlagSet, priority *string, yield *bool)
	// Embedded starts a throwaway PostgreSQL and Redis with their data in
	// dir; stop ends them.
	Embedded func(ctx context.Context, dir string, logger *slog.Logger) (databaseURL, redisAddr string, stop func(), err error)
	// Connect migrates the database of cfg and opens the store and queue.
	Connect func(ctx context.Context, cfg Config, logger *slog.Logger, opts store.OpenOpts) (*store.Store, *queue.Client, error)
	// API is the HTTP API on st and qc.
	API func(cfg Config, st *store.Store, qc *queue.Client, logger *slog.Logger) http.Handler
	// Work runs a worker process's solve workers and dispatcher on st (see
	// WorkerStoreOpts) until ctx ends.
	Work func(ctx context.Context, cfg Config, st *store.Store, qc *queue.Client, logger *slog.Logger) error
	// WorkerStoreOpts are the options of a worker's store.
	WorkerStoreOpts func(cfg Config) store.OpenOpts
}
