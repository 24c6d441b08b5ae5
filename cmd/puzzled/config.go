package main

import (
	"flag"

	"fmt"
	"github.com/puzzled/puzzled/api"
	"log/slog"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// config is the server configuration shared by every command.
type config struct {
	databaseURL     string
	redisAddr       string
	redisDB         int
	httpAddr        string
	concurrency     int
	checkpointEvery time.Duration
	staleAfter      time.Duration
	playouts        int
	logLevel        string
	limits          api.Limits
	tokens          []api.StaticToken
	metricsAddr     string
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

func envDuration(name string, def time.Duration) time.Duration {
	if v, err := time.ParseDuration(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

// flagSet declares the flags of cfg that a command uses.
func flagSet(name string, cfg *config, db, redis, http, work bool) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	if db {
		fs.StringVar(&cfg.databaseURL, "database-url", env("PUZZLED_DATABASE_URL", "postgres://127.0.0.1:5432/puzzled"), "PostgreSQL URL [PUZZLED_DATABASE_URL]")
	}
	if redis {
		fs.StringVar(&cfg.redisAddr, "redis-addr", env("PUZZLED_REDIS_ADDR", "127.0.0.1:6379"), "Redis host:port or redis:// / redis-sentinel:// URI [PUZZLED_REDIS_ADDR]")
		fs.IntVar(&cfg.redisDB, "redis-db", envInt("PUZZLED_REDIS_DB", 0), "Redis database index [PUZZLED_REDIS_DB]")
	}
	if http {
		fs.StringVar(&cfg.httpAddr, "http-addr", env("PUZZLED_HTTP_ADDR", "127.0.0.1:8080"), "HTTP listen address [PUZZLED_HTTP_ADDR]")
		fs.IntVar(&cfg.limits.MaxAttempts, "max-attempts", envInt("PUZZLED_MAX_ATTEMPTS", 5), "attempts per job before it fails [PUZZLED_MAX_ATTEMPTS]")
		fs.Int64Var(&cfg.limits.JobBody, "max-job-body", int64(envInt("PUZZLED_MAX_JOB_BODY", 64<<20)), "bytes in a POST /v1/jobs body [PUZZLED_MAX_JOB_BODY]")
		fs.Int64Var(&cfg.limits.BatchBody, "max-batch-body", int64(envInt("PUZZLED_MAX_BATCH_BODY", 512<<20)), "bytes in a POST /v1/batches body [PUZZLED_MAX_BATCH_BODY]")
		fs.IntVar(&cfg.limits.BatchLevels, "max-batch-levels", envInt("PUZZLED_MAX_BATCH_LEVELS", 100_000), "levels in one batch [PUZZLED_MAX_BATCH_LEVELS]")
		fs.Float64Var(&cfg.limits.SubmitRate, "submit-rate", float64(envInt("PUZZLED_SUBMIT_RATE", 20)), "submissions per second per token [PUZZLED_SUBMIT_RATE]")
		cfg.tokens = staticTokens(os.Getenv("PUZZLED_API_TOKENS"), false)
		cfg.tokens = append(cfg.tokens, staticTokens(os.Getenv("PUZZLED_API_READONLY_TOKENS"), true)...)
	}
	if work {
		fs.IntVar(&cfg.concurrency, "concurrency", envInt("PUZZLED_CONCURRENCY", runtime.NumCPU()), "solves at once [PUZZLED_CONCURRENCY]")
		fs.DurationVar(&cfg.checkpointEvery, "checkpoint-every", envDuration("PUZZLED_CHECKPOINT_EVERY", 5*time.Second), "least time between checkpoints of a search [PUZZLED_CHECKPOINT_EVERY]")
		fs.StringVar(&cfg.metricsAddr, "metrics-addr", env("PUZZLED_METRICS_ADDR", ""), "serve the worker's /metrics here, e.g. :9091 (default off) [PUZZLED_METRICS_ADDR]")
		fs.IntVar(&cfg.playouts, "difficulty-playouts", envInt("PUZZLED_DIFFICULTY_PLAYOUTS", 0), "playouts per player of the difficulty figures; 0 = 1000, negative = no figures [PUZZLED_DIFFICULTY_PLAYOUTS]")
		fs.DurationVar(&cfg.staleAfter, "stale-after", envDuration("PUZZLED_STALE_AFTER", time.Minute), "re-check that a live job still has an asynq task after this long [PUZZLED_STALE_AFTER]")
	}
	fs.StringVar(&cfg.logLevel, "log-level", env("PUZZLED_LOG_LEVEL", "info"), "debug, info, warn or error [PUZZLED_LOG_LEVEL]")
	return fs
}

func (c *config) logger() (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(c.logLevel)); err != nil {
		return nil, fmt.Errorf("log level %q: %w", c.logLevel, err)
	}
	return slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: level})), nil
}

// staticTokens parses PUZZLED_API_TOKENS / PUZZLED_API_READONLY_TOKENS:
// comma-separated tokens, each "name:token" or a bare token.
func staticTokens(list string, readOnly bool) []api.StaticToken {
	var out []api.StaticToken
	for i, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, token, ok := strings.Cut(item, ":")
		if !ok {
			name, token = fmt.Sprintf("env-%d", i+1), item
		}
		out = append(out, api.StaticToken{Name: name, Token: token, ReadOnly: readOnly})
	}
	return out
}
