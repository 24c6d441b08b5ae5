package devstack

import (
	"bytes"
	"context"
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

// initdb creates the cluster in the data folder unless one is there already,
// from the initdb cache when one is configured.
func (p *Postgres) initdb(ctx context.Context) error {
	if hasCluster(p.cfg.Dir) {
		return nil
	}
	if p.cfg.InitCacheDir != "" && p.cfg.Password == "" && isEmptyDir(p.cfg.Dir) && p.initFromCache(ctx) {
		return nil
	}
	began := time.Now()
	if err := p.runInitdb(ctx, p.cfg.Dir, p.cfg.Password); err != nil {
		return err
	}
	p.cfg.Logger.Info("postgres data folder initialised",
		slog.String("dir", p.cfg.Dir), slog.Duration("took", time.Since(began)))
	return nil
}

// initdbArgs are the initdb arguments for a cluster in dir.
func (p *Postgres) initdbArgs(dir string) []string {
	args := []string{
		"-D", dir,
		"-U", SuperUser,
		"--auth=trust",
		"--encoding=UTF8",
		"--locale=C",
	}
	if p.cfg.DisableFsync {
		args = append(args, "--no-sync")
	}
	return args
}

// runInitdb runs initdb into dir as the server user. With a password, the
// superuser gets it and every connection must give it; it reaches initdb in
// a private file, never on the command line.
func (p *Postgres) runInitdb(ctx context.Context, dir, password string) error {
	args := p.initdbArgs(dir)
	if password != "" {
		pwfile, err := p.writePasswordFile(dir, password)
		if err != nil {
			return err
		}
		defer os.Remove(pwfile)
		args = append(withoutTrust(args), "--auth=scram-sha-256", "--pwfile="+pwfile)
	}
	cmd := exec.CommandContext(ctx, p.bins.initdb, args...)
	var out bytes.Buffer
	cmd.Dir = "/"
	cmd.Env = childEnv()
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = procAttr(p.runAs, syscall.SIGKILL)
	err := startOnSpawner(cmd)
	if err == nil {
		err = cmd.Wait()
	}
	if err != nil {
		return fmt.Errorf("%w: %s in %s as %s: %w\n%s",
			ErrInitdb, p.bins.initdb, dir, p.runAs, err, bytes.TrimSpace(out.Bytes()))
	}
	return nil
}

// isEmptyDir reports whether dir exists and has no entries.
func isEmptyDir(dir string) bool {
	entries, err := os.ReadDir(dir)
	return err == nil && len(entries) == 0
}
