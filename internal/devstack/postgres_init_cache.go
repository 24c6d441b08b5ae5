package devstack

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"
)

// cachedCluster returns the folder in cfg.InitCacheDir that holds a fresh
// cluster made by this postgres binary with these initdb options, running
// initdb into it first when it is missing. Concurrent callers, in this or
// other processes, race by renaming their finished initdb folder into place;
// the losers throw theirs away.
func (p *Postgres) cachedCluster(ctx context.Context) (string, error) {
	if err := os.MkdirAll(p.cfg.InitCacheDir, 0o755); err != nil {
		return "", fmt.Errorf("devstack: initdb cache %s: %w", p.cfg.InitCacheDir, err)
	}
	final := filepath.Join(p.cfg.InitCacheDir, p.cacheKey())
	if hasCluster(final) {
		return final, nil
	}
	tmp, err := os.MkdirTemp(p.cfg.InitCacheDir, filepath.Base(final)+".tmp-")
	if err != nil {
		return "", fmt.Errorf("devstack: initdb cache %s: %w", p.cfg.InitCacheDir, err)
	}
	defer os.RemoveAll(tmp) // a no-op once renamed
	if err := prepareDir(tmp, p.runAs); err != nil {
		return "", err
	}
	if err := p.runInitdb(ctx, tmp, ""); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, final); err != nil && !hasCluster(final) {
		return "", fmt.Errorf("devstack: initdb cache: move %s to %s: %w", tmp, final, err)
	}
	return final, nil
}

// cacheKey names a cached cluster after the postgres binary (path, size,
// modification time) and the initdb options that shape the cluster.
func (p *Postgres) cacheKey() string {
	h := sha256.New()
	fmt.Fprintln(h, p.bins.postgres, p.runAs)
	if fi, err := os.Stat(p.bins.postgres); err == nil {
		fmt.Fprintln(h, fi.Size(), fi.ModTime().UnixNano())
	}
	fmt.Fprintln(h, p.initdbArgs("")[1:])
	return "pg-" + hex.EncodeToString(h.Sum(nil)[:8])
}

// initFromCache fills the empty data folder with a copy of the cached
// cluster. It reports false, logging why, when the cache cannot be used.
func (p *Postgres) initFromCache(ctx context.Context) bool {
	began := time.Now()
	src, err := p.cachedCluster(ctx)
	if err == nil {
		err = copyTree(src, p.cfg.Dir)
	}
	if err == nil {
		err = chownTree(p.cfg.Dir, p.runAs, true)
	}
	if err != nil {
		p.cfg.Logger.Warn("initdb cache not used", slog.String("cache", p.cfg.InitCacheDir), slog.Any("error", err))
		return false
	}
	p.cfg.Logger.Info("postgres data folder copied from initdb cache",
		slog.String("dir", p.cfg.Dir), slog.String("from", src), slog.Duration("took", time.Since(began)))
	return true
}

// copyTree copies the files and folders of src into the existing folder dst,
// keeping their permissions.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil || rel == "." {
			return err
		}
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.Mkdir(target, info.Mode().Perm())
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		default:
			return copyFile(path, target, info.Mode().Perm())
		}
	})
}

func copyFile(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy %s: %w", src, err)
	}
	return out.Close()
}
