package devstack

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// passwordHBA is pg_hba.conf for a cluster with a password: SCRAM for every
// connection (the server has no Unix socket; the local line is for safety).
const passwordHBA = `# Written by puzzled (internal/devstack): every connection needs the password.
local all all scram-sha-256
host  all all 127.0.0.1/32 scram-sha-256
host  all all ::1/128 scram-sha-256
`

// withoutTrust drops the --auth=trust of initdbArgs.
func withoutTrust(args []string) []string {
	return slices.DeleteFunc(slices.Clone(args), func(a string) bool { return a == "--auth=trust" })
}

// writePasswordFile puts password in a private file beside the data folder
// dir, readable by the server user only, for initdb --pwfile.
func (p *Postgres) writePasswordFile(dir, password string) (string, error) {
	path := filepath.Join(filepath.Dir(dir), "."+filepath.Base(dir)+".pwfile")
	if err := writePrivateFile(path, []byte(password+"\n"), p.runAs); err != nil {
		return "", fmt.Errorf("devstack: initdb password file: %w", err)
	}
	return path, nil
}

// requirePassword switches a running cluster that still trusts local
// connections (made before passwords, or with none) to cfg.Password: it sets
// the superuser's password, rewrites pg_hba.conf, reloads, and returns once
// a connection without the password is refused. A no-op without a password
// or when the cluster already asks for one.
func (p *Postgres) requirePassword(ctx context.Context) error {
	if p.cfg.Password == "" {
		return nil
	}
	hba := filepath.Join(p.cfg.Dir, "pg_hba.conf")
	trusts, err := hbaTrusts(hba)
	if err != nil || !trusts {
		return err
	}
	conn, err := pgx.Connect(ctx, p.URLFor("postgres"))
	if err != nil {
		return fmt.Errorf("devstack: connect to set the password: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	alter := "ALTER ROLE " + pgx.Identifier{SuperUser}.Sanitize() + " PASSWORD " + quoteLiteral(p.cfg.Password)
	if _, err := conn.Exec(ctx, alter); err != nil {
		return fmt.Errorf("devstack: set the superuser's password: %w", err)
	}
	if err := writePrivateFile(hba, []byte(passwordHBA), p.runAs); err != nil {
		return fmt.Errorf("devstack: rewrite %s: %w", hba, err)
	}
	if _, err := conn.Exec(ctx, "SELECT pg_reload_conf()"); err != nil {
		return fmt.Errorf("devstack: reload configuration: %w", err)
	}
	if err := p.waitPasswordRequired(ctx); err != nil {
		return err
	}
	p.cfg.Logger.Info("postgres now requires a password", slog.String("dir", p.cfg.Dir))
	return nil
}

// waitPasswordRequired polls until a connection without password is
// refused: the reload that applies pg_hba.conf is asynchronous.
func (p *Postgres) waitPasswordRequired(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, p.cfg.ReadyTimeout)
	defer cancel()
	open := postgresURL(p.Port(), "postgres", url.User(SuperUser))
	for pingPostgres(ctx, open) == nil {
		select {
		case <-ctx.Done():
			return fmt.Errorf("devstack: postgres in %s still accepts connections without password after %s: %w",
				p.cfg.Dir, p.cfg.ReadyTimeout, ctx.Err())
		case <-time.After(pollInterval):
		}
	}
	return nil
}

// hbaTrusts reports whether a pg_hba.conf has a rule with trust
// authentication.
func hbaTrusts(path string) (bool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return false, fmt.Errorf("devstack: read %s: %w", path, err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		if slices.Contains(strings.Fields(line), "trust") {
			return true, nil
		}
	}
	return false, sc.Err()
}

// quoteLiteral quotes s as an SQL string literal (standard_conforming_strings
// is on, so only quotes need doubling).
func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
