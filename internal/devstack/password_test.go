package devstack

import (
	"context"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/redis/go-redis/v9"

	"github.com/puzzled/puzzled/internal/waittest"
)

// connectErr is the error of connecting to url, nil when it works.
func connectErr(t *testing.T, url string) error {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), url)
	if err == nil {
		conn.Close(context.Background())
	}
	return err
}

// checkPasswordRequired asserts that pg takes its password and refuses a
// connection without it or with a wrong one.
func checkPasswordRequired(t *testing.T, pg *Postgres) {
	t.Helper()
	if err := connectErr(t, pg.URL()); err != nil {
		t.Fatalf("with the password: %v", err)
	}
	users := map[string]*url.Userinfo{"no password": url.User(SuperUser), "wrong password": url.UserPassword(SuperUser, "wrong")}
	for name, user := range users {
		if err := connectErr(t, postgresURL(pg.Port(), "postgres", user)); err == nil || !strings.Contains(err.Error(), "password") {
			t.Fatalf("%s: connection not refused for want of a password: %v", name, err)
		}
	}
}

func TestPostgresNewClusterRequiresPassword(t *testing.T) {
	t.Parallel()
	parent := tempDir(t)
	if err := os.Chmod(parent, 0o755); err != nil { // the server user goes through it
		t.Fatal(err)
	}
	dir := filepath.Join(parent, "pg")
	pg := startTestPostgresIn(t, PostgresConfig{Dir: dir, DisableFsync: true, Password: "s3cret'quote"})
	checkPasswordRequired(t, pg)
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), ".pg.pwfile")); !os.IsNotExist(err) {
		t.Fatalf("initdb password file left behind: %v", err)
	}
	if trusts, err := hbaTrusts(filepath.Join(dir, "pg_hba.conf")); err != nil || trusts {
		t.Fatalf("pg_hba.conf trusts: %v %v", trusts, err)
	}
}

// A data folder made before passwords (trust) gets one on its next start,
// keeping its data.
func TestPostgresOldClusterGetsPassword(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	old, err := StartPostgres(t.Context(), PostgresConfig{Dir: dir, DisableFsync: true, InitCacheDir: testInitCache(), Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	execSQL(t, old.URL(), "CREATE TABLE kept (n int); INSERT INTO kept VALUES (7)")
	if err := old.Stop(stopCtx(t)); err != nil {
		t.Fatal(err)
	}

	pg := startTestPostgresIn(t, PostgresConfig{Dir: dir, DisableFsync: true, Password: "newpass"})
	checkPasswordRequired(t, pg)
	if n := query(t, pg.URL(), "SELECT n FROM kept"); n != 7 {
		t.Fatalf("kept = %d, want 7", n)
	}
	if err := pg.Restart(t.Context()); err != nil { // a second start finds it done
		t.Fatal(err)
	}
	checkPasswordRequired(t, pg)
}

func TestRedisRequiresPassword(t *testing.T) {
	t.Parallel()
	for name, inProcess := range map[string]bool{"redis-server": false, "miniredis": true} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := tempDir(t)
			r := startTestRedis(t, RedisConfig{Dir: dir, Persist: !inProcess, InProcess: inProcess, Password: "pw-123"})
			if r.InProcess() != inProcess {
				t.Fatalf("InProcess = %v, want %v", r.InProcess(), inProcess)
			}
			ctx := t.Context()
			if err := redisClient(t, r.Addr()).Ping(ctx).Err(); err == nil || !strings.Contains(err.Error(), "NOAUTH") {
				t.Fatalf("PING without password: %v, want NOAUTH", err)
			}
			opt, err := redis.ParseURL(r.URL())
			if err != nil {
				t.Fatal(err)
			}
			opt.DisableIdentity = true
			c := redis.NewClient(opt)
			defer c.Close()
			if err := c.Ping(ctx).Err(); err != nil {
				t.Fatalf("PING with the URL's password: %v", err)
			}
			if inProcess {
				return
			}
			fi, err := os.Stat(filepath.Join(dir, redisConfFile))
			if err != nil || fi.Mode().Perm() != 0o600 {
				t.Fatalf("configuration file: %v %v, want mode 0600", fi, err)
			}
			if pid := r.PID(); strings.Contains(cmdline(t, pid), "pw-123") {
				t.Fatalf("the password is on redis-server's command line: %q", cmdline(t, pid))
			}
		})
	}
}

// cmdline is the command line of pid, arguments joined by spaces.
func cmdline(t *testing.T, pid int) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("/proc", itoa(pid), "cmdline"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(string(data), "\x00", " ")
}

// A wrong password fails the start at once with ErrBadPassword, not after
// the ready timeout.
func TestPostgresWrongPasswordFailsFast(t *testing.T) {
	t.Parallel()
	parent := tempDir(t)
	if err := os.Chmod(parent, 0o755); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(parent, "pg")
	pg := startTestPostgresIn(t, PostgresConfig{Dir: dir, DisableFsync: true, Password: "right"})
	if err := pg.Stop(stopCtx(t)); err != nil {
		t.Fatal(err)
	}
	_, err := StartPostgres(t.Context(), PostgresConfig{Dir: dir, DisableFsync: true, Password: "wrong", Logger: testLogger(t)})
	if !errors.Is(err, ErrBadPassword) {
		t.Fatalf("start with the wrong password: %v, want ErrBadPassword", err)
	}
	waittest.WaitFor(t, time.Minute, "the refused server to be stopped", func() bool { return len(processesIn(dir)) == 0 })
}
