package devstack

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// hasCluster reports whether dir already holds an initialised cluster.
func hasCluster(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "PG_VERSION"))
	return err == nil
}

// initdb creates the cluster in the data folder unless one is there already.
func (p *Postgres) initdb(ctx context.Context) error {
	if hasCluster(p.cfg.Dir) {
		return nil
	}
	began := time.Now()
	args := []string{
		"-D", p.cfg.Dir,
		"-U", SuperUser,
		"--auth=trust",
		"--encoding=UTF8",
		"--locale=C",
	}
	if p.cfg.DisableFsync {
		args = append(args, "--no-sync")
	}
	cmd := exec.CommandContext(ctx, p.bins.initdb, args...)
	var out bytes.Buffer
	cmd.Dir = "/"
	cmd.Env = childEnv()
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = procAttr(p.runAs, syscall.SIGKILL)
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%w: %s in %s as %s: %w\n%s",
			ErrInitdb, p.bins.initdb, p.cfg.Dir, p.runAs, err, bytes.TrimSpace(out.Bytes()))
	}
	p.cfg.Logger.Info("postgres data folder initialised",
		slog.String("dir", p.cfg.Dir), slog.Duration("took", time.Since(began)))
	return nil
}

// isPortInUse reports whether err came from a port someone else holds.
func isPortInUse(err error) bool { return errors.Is(err, ErrPortInUse) }
