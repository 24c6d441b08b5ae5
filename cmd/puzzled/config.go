package main

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"strconv"
	"time"

	"github.com/puzzled/puzzled/api"
	"github.com/puzzled/puzzled/internal/webhook"
	"github.com/puzzled/puzzled/queue"
	"github.com/puzzled/puzzled/store"
	"github.com/puzzled/puzzled/worker"
)

// config is the server configuration shared by every command.
type config struct {
	databaseURL     string
	directURL       string        // PostgreSQL itself, for migrations and LISTEN, when databaseURL goes through a pooler
	pooler          string        // what databaseURL goes through: "none" or "transaction"
	startTimeout    time.Duration // how long serve and work wait for their servers at start
	redisAddr       string
	redisDB         int
	httpAddr        string
	concurrency     int
	dbConns         int           // the worker's pool size; 0: workerPoolSize
	interactive     int           // reserved interactive slots per worker
	interactivePoll time.Duration // their idle poll
	checkpointEvery time.Duration
	staleAfter      time.Duration
	gcEvery         time.Duration // the periodic garbage collection (gc.go)
	deadAfter       time.Duration
	shutdownTimeout time.Duration // bound of a worker's shutdown after SIGTERM
	playouts        int
	bulkPriority    string // of the bulk solve processes: "idle", a niceness, or "off" (bulk searches run in the worker)
	bulkYield       bool   // stop the bulk solve processes while interactive jobs are on their way
	logLevel        string
	limits          api.Limits
	tokens          []api.StaticToken
	tokensErr       error // a malformed token variable, reported by commands that serve
	metricsAddr     string
	webhooks        webhook.Config // webhooks.go
	webhooksErr     error          // a malformed webhook variable, reported by connect

	// vacuumIfNoAutovacuum: the API's store stands in for autovacuum
	// while it is off (store.OpenOpts.VacuumIfNoAutovacuum).
	vacuumIfNoAutovacuum bool
}

func env(name, def string) string {
	if v, ok := os.LookupEnv(name); ok {
		return v
	}
	return def
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

func envBool(name string, def bool) bool {
	if v, err := strconv.ParseBool(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

func envDuration(name string, def time.Duration) time.Duration {
	if v, err := time.ParseDuration(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

// flagGroups names the groups of flags a command takes; --log-level is
// always there.
type flagGroups struct {
	Database bool // --database-url, --direct-database-url, --database-pooler, --start-timeout
	Redis    bool // --redis-addr, --redis-db
	HTTP     bool // --http-addr, request limits, and the API token variables
	Work     bool // --concurrency, --checkpoint-every, --metrics-addr, --stale-after
}

// bulkPriorityFlag declares --bulk-priority and --bulk-yield (work, dev and
// the bench commands).
func bulkPriorityFlag(fs *flag.FlagSet, priority *string, yield *bool) {
	fs.StringVar(priority, "bulk-priority", env("PUZZLED_BULK_PRIORITY", "10"), `CPU priority of the child processes that run bulk searches, so that the API and interactive jobs keep their CPU: a niceness 0–19, "idle" (SCHED_IDLE: only CPU time nothing else wants; for machines that run nothing else), or "off" (bulk searches run in the worker process) [PUZZLED_BULK_PRIORITY]`)
	fs.BoolVar(yield, "bulk-yield", envBool("PUZZLED_BULK_YIELD", true), "stop the bulk solve processes for a moment whenever an interactive job is submitted or runs here: 20 ms a notice, at most 200 ms at a time, then at least 50 ms of running [PUZZLED_BULK_YIELD]")
}

// flagSet declares the flags of cfg in the groups a command uses.
func flagSet(name string, cfg *config, groups flagGroups) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	if groups.Database {
		fs.StringVar(&cfg.databaseURL, "database-url", env("PUZZLED_DATABASE_URL", "postgres://127.0.0.1:5432/puzzled"), "PostgreSQL URL [PUZZLED_DATABASE_URL]")
		fs.StringVar(&cfg.pooler, "database-pooler", env("PUZZLED_DATABASE_POOLER", poolerNone), `what --database-url goes through: "none" (PostgreSQL itself, or a pooler in session mode) or "transaction" (PgBouncer in transaction mode: no prepared statements, and --direct-database-url is required) [PUZZLED_DATABASE_POOLER]`)
		fs.StringVar(&cfg.directURL, "direct-database-url", env("PUZZLED_DIRECT_DATABASE_URL", env("PUZZLED_MIGRATE_DATABASE_URL", "")), "URL of PostgreSQL itself, not through a transaction pooler, for migrations (a session's advisory lock) and the long-poll listener (LISTEN) (default: --database-url) [PUZZLED_DIRECT_DATABASE_URL, or its other name PUZZLED_MIGRATE_DATABASE_URL]")
		fs.DurationVar(&cfg.startTimeout, "start-timeout", envDuration("PUZZLED_START_TIMEOUT", 2*time.Minute), "how long serve and work wait at start for PostgreSQL (and work for Redis) to be reachable, retrying with backoff [PUZZLED_START_TIMEOUT]")
	}
	if groups.Redis {
		fs.StringVar(&cfg.redisAddr, "redis-addr", env("PUZZLED_REDIS_ADDR", "127.0.0.1:6379"), "Redis host:port, or a redis://, rediss:// or redis-sentinel:// URL (docs/service.md) [PUZZLED_REDIS_ADDR]")
		fs.IntVar(&cfg.redisDB, "redis-db", envInt("PUZZLED_REDIS_DB", 0), "Redis database index [PUZZLED_REDIS_DB]")
	}
	if groups.HTTP {
		fs.StringVar(&cfg.httpAddr, "http-addr", env("PUZZLED_HTTP_ADDR", "127.0.0.1:8080"), "HTTP listen address [PUZZLED_HTTP_ADDR]")
		fs.IntVar(&cfg.limits.MaxAttempts, "max-attempts", envInt("PUZZLED_MAX_ATTEMPTS", 5), "attempts per job before it fails [PUZZLED_MAX_ATTEMPTS]")
		fs.Int64Var(&cfg.limits.JobBody, "max-job-body", int64(envInt("PUZZLED_MAX_JOB_BODY", 64<<20)), "bytes in a POST /v1/jobs body [PUZZLED_MAX_JOB_BODY]")
		fs.Int64Var(&cfg.limits.BatchBody, "max-batch-body", int64(envInt("PUZZLED_MAX_BATCH_BODY", 512<<20)), "bytes in a POST /v1/batches body [PUZZLED_MAX_BATCH_BODY]")
		fs.IntVar(&cfg.limits.BatchLevels, "max-batch-levels", envInt("PUZZLED_MAX_BATCH_LEVELS", 100_000), "levels in one batch [PUZZLED_MAX_BATCH_LEVELS]")
		fs.IntVar(&cfg.limits.BatchUploads, "batch-uploads", envInt("PUZZLED_BATCH_UPLOADS", 4), "POST /v1/batches bodies read at once; more get 503 [PUZZLED_BATCH_UPLOADS]")
		fs.Float64Var(&cfg.limits.MinUploadRate, "min-upload-rate", float64(envInt("PUZZLED_MIN_UPLOAD_RATE", 8<<10)), "least average bytes/s of a request body after 10 s; slower gets 408 [PUZZLED_MIN_UPLOAD_RATE]")
		fs.Float64Var(&cfg.limits.SubmitRate, "submit-rate", float64(envInt("PUZZLED_SUBMIT_RATE", 20)), "submissions per second per token [PUZZLED_SUBMIT_RATE]")
		fs.BoolVar(&cfg.vacuumIfNoAutovacuum, "vacuum-if-no-autovacuum", envBool("PUZZLED_VACUUM_IF_NO_AUTOVACUUM", true), "while PostgreSQL's autovacuum is off, vacuum and analyze puzzled's tables when autovacuum would (once a minute, skipping tables another session holds); false leaves them to your own VACUUM [PUZZLED_VACUUM_IF_NO_AUTOVACUUM]")
		cfg.tokens, cfg.tokensErr = staticTokens()
	}
	if groups.Work {
		fs.IntVar(&cfg.concurrency, "concurrency", envInt("PUZZLED_CONCURRENCY", runtime.NumCPU()), "solves at once [PUZZLED_CONCURRENCY]")
		fs.IntVar(&cfg.interactive, "interactive-slots", envInt("PUZZLED_INTERACTIVE_SLOTS", 1), "solves reserved for interactive jobs, on top of --concurrency [PUZZLED_INTERACTIVE_SLOTS]")
		fs.DurationVar(&cfg.interactivePoll, "interactive-poll", envDuration("PUZZLED_INTERACTIVE_POLL", queue.InteractivePoll), "idle poll of the reserved interactive slots [PUZZLED_INTERACTIVE_POLL]")
		fs.DurationVar(&cfg.checkpointEvery, "checkpoint-every", envDuration("PUZZLED_CHECKPOINT_EVERY", 5*time.Second), "least time between checkpoints of a search [PUZZLED_CHECKPOINT_EVERY]")
		fs.StringVar(&cfg.metricsAddr, "metrics-addr", env("PUZZLED_METRICS_ADDR", ""), "serve the worker's /metrics here, e.g. :9091 (default off) [PUZZLED_METRICS_ADDR]")
		fs.IntVar(&cfg.playouts, "difficulty-playouts", envInt("PUZZLED_DIFFICULTY_PLAYOUTS", 0), "playouts per player of the difficulty figures of interactive jobs that do not set difficulty.playouts; 0 = 1000, negative = no figures for any job [PUZZLED_DIFFICULTY_PLAYOUTS]")
		bulkPriorityFlag(fs, &cfg.bulkPriority, &cfg.bulkYield)
		fs.IntVar(&cfg.dbConns, "db-conns", envInt("PUZZLED_DB_CONNS", 0), "PostgreSQL connections of the worker's pool, besides its heartbeat connection; 0: 4 + (concurrency + interactive slots)/8 (docs/service.md, \"Connection budget\") [PUZZLED_DB_CONNS]")
		fs.DurationVar(&cfg.deadAfter, "dead-after", envDuration("PUZZLED_DEAD_AFTER", worker.DeadAfter), "judge a worker dead, and take its jobs over, when its last heartbeat is this old; the same on every worker [PUZZLED_DEAD_AFTER]")
		fs.DurationVar(&cfg.gcEvery, "gc-every", envDuration("PUZZLED_GC_EVERY", 10*time.Minute), "delete what the projects' retention lets go this often (0: never; one worker at a time does) [PUZZLED_GC_EVERY]")
		fs.DurationVar(&cfg.staleAfter, "stale-after", envDuration("PUZZLED_STALE_AFTER", time.Minute), "re-check that a live job still has an asynq task after this long [PUZZLED_STALE_AFTER]")
		fs.DurationVar(&cfg.shutdownTimeout, "shutdown-timeout", envDuration("PUZZLED_SHUTDOWN_TIMEOUT", worker.DefaultShutdownTimeout), "after SIGTERM, exit by this long even if a search or Redis call is stuck; other workers take its jobs over [PUZZLED_SHUTDOWN_TIMEOUT]")
	}
	if groups.HTTP || groups.Work {
		webhookFlags(fs, cfg)
	}
	fs.StringVar(&cfg.logLevel, "log-level", env("PUZZLED_LOG_LEVEL", "info"), "debug, info, warn or error [PUZZLED_LOG_LEVEL]")
	return fs
}

const (
	poolerNone        = "none"
	poolerTransaction = "transaction"
)

// storeOpts adds to opts how the store reaches PostgreSQL.
func (c *config) storeOpts(opts store.OpenOpts) (store.OpenOpts, error) {
	switch c.pooler {
	case poolerNone, "":
	case poolerTransaction:
		if c.directURL == "" {
			return opts, errors.New("--database-pooler transaction needs --direct-database-url (PUZZLED_DIRECT_DATABASE_URL): migrations and LISTEN need a session of their own, which a transaction pooler does not keep")
		}
		opts.TransactionPooler = true
	default:
		return opts, fmt.Errorf("--database-pooler %q: want %q or %q", c.pooler, poolerNone, poolerTransaction)
	}
	opts.DirectURL = c.directURL
	return opts, nil
}

// migrateURL is where migrations run: their lock is a session's.
func (c *config) migrateURL() string {
	if c.directURL != "" {
		return c.directURL
	}
	return c.databaseURL
}

func (c *config) logger() (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(c.logLevel)); err != nil {
		return nil, fmt.Errorf("log level %q: %w", c.logLevel, err)
	}
	return slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: level})), nil
}

// staticTokens reads PUZZLED_API_TOKENS and PUZZLED_API_READONLY_TOKENS
// (format: api.ParseTokens).
func staticTokens() ([]api.StaticToken, error) {
	rw, err := api.ParseTokens(os.Getenv("PUZZLED_API_TOKENS"), false)
	if err != nil {
		return nil, fmt.Errorf("PUZZLED_API_TOKENS: %w", err)
	}
	ro, err := api.ParseTokens(os.Getenv("PUZZLED_API_READONLY_TOKENS"), true)
	if err != nil {
		return nil, fmt.Errorf("PUZZLED_API_READONLY_TOKENS: %w", err)
	}
	return append(rw, ro...), nil
}
