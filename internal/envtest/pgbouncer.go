package envtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/puzzled/puzzled/internal/devstack"
)

// PgBouncerBinary is where Debian's pgbouncer package installs it.
const PgBouncerBinary = "/usr/sbin/pgbouncer"

// PgBouncer starts a PgBouncer of this test alone in transaction mode in
// front of the database of databaseURL (from PostgresURL) and returns a URL
// of the same database through it. Its pool holds serverConns server
// connections, so that every few clients share one and a session's state
// (a prepared statement, a SET, a LISTEN) leaks or is lost as it would in
// production. The test fails when pgbouncer is not installed.
func PgBouncer(t testing.TB, databaseURL string, serverConns int) string {
	t.Helper()
	pc, err := pgconn.ParseConfig(databaseURL)
	if err != nil {
		t.Fatalf("envtest: pgbouncer: parse %s: %v", databaseURL, err)
	}
	if _, err := os.Stat(PgBouncerBinary); err != nil {
		t.Fatalf("envtest: pgbouncer is not installed (apt-get install pgbouncer): %v", err)
	}
	// pgbouncer refuses to run as root and reads its files after it
	// starts: a folder every user can read (it holds a test password).
	dir, err := os.MkdirTemp("", "puzzled-pgbouncer-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(databaseURL)
	if err != nil || u.Scheme == "" {
		t.Fatalf("envtest: pgbouncer needs a postgres:// URL, got %q (%v)", databaseURL, err)
	}
	server := fmt.Sprintf("host=%s port=%d dbname=%s user=%s", pc.Host, pc.Port, pc.Database, pc.User)
	if pc.Password != "" {
		server += " password=" + pc.Password
	}
	// Another process may take the port between its pick and pgbouncer's
	// bind; pgbouncer then exits saying so, and another port is tried.
	var pooled string
	err = devstack.OnFreePort(func(port int) error {
		u.Host = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		u.User = url.User(pc.User) // the pooler does not ask for the password; it holds it
		pooled = u.String()
		return startPgBouncer(t, dir, port, pooled, pc, server, serverConns)
	})
	if err != nil {
		t.Fatalf("envtest: pgbouncer: %v", err)
	}
	return pooled
}

// startPgBouncer runs pgbouncer in dir on port and waits until pooled
// answers (devstack.ErrPortInUse: another process holds the port). The
// test's cleanup stops it.
func startPgBouncer(t testing.TB, dir string, port int, pooled string, pc *pgconn.Config, server string, serverConns int) error {
	t.Helper()
	ini := fmt.Sprintf(`[databases]
%s = %s
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = %d
unix_socket_dir =
auth_type = trust
auth_file = %s
pool_mode = transaction
default_pool_size = %d
max_client_conn = 1000
`, pc.Database, server, port, filepath.Join(dir, "users.txt"), serverConns)
	files := map[string]string{"pgbouncer.ini": ini, "users.txt": strconv.Quote(pc.User) + ` ""` + "\n"}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(PgBouncerBinary, filepath.Join(dir, "pgbouncer.ini"))
	log, err := os.Create(filepath.Join(dir, "pgbouncer.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if os.Geteuid() == 0 {
		cred, err := unprivileged()
		if err != nil {
			t.Fatal(err)
		}
		cmd.SysProcAttr.Credential = cred
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("envtest: start pgbouncer: %v", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGINT) // pgbouncer's fast shutdown
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
	})

	if err := waitReachable(pooled, exited); err != nil {
		out, _ := os.ReadFile(filepath.Join(dir, "pgbouncer.log"))
		if bytes.Contains(out, []byte("Address already in use")) {
			return fmt.Errorf("%w: pgbouncer on port %d", devstack.ErrPortInUse, port)
		}
		return fmt.Errorf("%w; its log:\n%s", err, out)
	}
	return nil
}

// waitReachable polls pooled until a query through it answers.
func waitReachable(pooled string, exited <-chan struct{}) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := ping(ctx, pooled)
		cancel()
		// An answer counts only while pgbouncer runs: another server may
		// hold the port it could not bind.
		select {
		case <-exited:
			return errors.New("it exited at start")
		default:
		}
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not reachable after 30 s: %w", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// unprivileged is the account pgbouncer runs as when we are root.
func unprivileged() (*syscall.Credential, error) {
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
	}
	return nil, errors.New("envtest: no postgres or nobody user to run pgbouncer as")
}
