package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/puzzled/puzzled/internal/devstack"
)

// passwordFile is the file in the dev data folder that holds the password of
// the embedded PostgreSQL (user postgres) and Redis.
const passwordFile = "password"

// embedded is the dev stack's PostgreSQL and Redis child processes.
type embedded struct {
	pg    *devstack.Postgres
	redis *devstack.Redis
}

// startEmbedded starts PostgreSQL and Redis with their data in dir, both
// asking for password.
func startEmbedded(ctx context.Context, dir, password string, logger *slog.Logger) (*embedded, error) {
	pg, err := devstack.StartPostgres(ctx, devstack.PostgresConfig{
		Dir: filepath.Join(dir, "postgres"), Password: password, Logger: logger,
	})
	if errors.Is(err, devstack.ErrBadPassword) {
		return nil, fmt.Errorf("dev: embedded PostgreSQL does not take the password in %s (was the file replaced? "+
			"put the old one back, or change scram-sha-256 to trust in %s once to adopt the new one): %w",
			filepath.Join(dir, passwordFile), filepath.Join(dir, "postgres", "pg_hba.conf"), err)
	}
	if err != nil {
		return nil, fmt.Errorf("dev: embedded PostgreSQL: %w", err)
	}
	redis, err := devstack.StartRedis(ctx, devstack.RedisConfig{
		Dir: filepath.Join(dir, "redis"), Persist: true, Password: password, Logger: logger,
	})
	if err != nil {
		_ = pg.Stop(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("dev: embedded Redis: %w", err)
	}
	logger.Info("embedded stack up",
		slog.Int("postgres_port", pg.Port()), slog.Int("redis_port", redis.Port()),
		slog.Bool("redis_in_process", redis.InProcess()))
	return &embedded{pg: pg, redis: redis}, nil
}

func (e *embedded) stop(logger *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := e.redis.Stop(ctx); err != nil {
		logger.Warn("stopping embedded Redis", slog.Any("error", err))
	}
	if err := e.pg.Stop(ctx); err != nil {
		logger.Warn("stopping embedded PostgreSQL", slog.Any("error", err))
	}
	logger.Info("embedded stack stopped")
}

// newPassword is 24 random bytes in hex: safe in URLs, shells and
// configuration files.
func newPassword() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return hex.EncodeToString(b)
}

// devPassword reads the password kept in dir, making it on first start (and
// for a folder from before passwords). The file is mode 0600; a looser mode
// is tightened.
func devPassword(dir string, logger *slog.Logger) (string, error) {
	path := filepath.Join(dir, passwordFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		pw := newPassword()
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return "", fmt.Errorf("dev: create %s: %w", path, err)
		}
		_, err = f.WriteString(pw + "\n")
		if err = errors.Join(err, f.Sync(), f.Close()); err != nil {
			return "", fmt.Errorf("dev: write %s: %w", path, err)
		}
		logger.Info("password for the embedded servers created", slog.String("file", path))
		return pw, nil
	}
	if err != nil {
		return "", fmt.Errorf("dev: read %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		return "", fmt.Errorf("dev: chmod %s: %w", path, err)
	}
	pw := strings.TrimSpace(string(data))
	if pw == "" || strings.ContainsAny(pw, " \t\r\n'\"\\") {
		return "", fmt.Errorf("dev: %s must hold one password without blanks, quotes or backslashes (delete it to get a new one)", path)
	}
	return pw, nil
}
