package devstack

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestPostgresErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		cfg   func(t *testing.T) PostgresConfig
		want  error
		words []string // the message must name these
	}{
		{
			name: "binary not found",
			cfg:  func(t *testing.T) PostgresConfig { return PostgresConfig{Dir: tempDir(t), BinDir: "/nonexistent/bin"} },
			want: ErrBinaryNotFound, words: []string{"initdb", "/nonexistent/bin", "apt-get install postgresql", "PUZZLED_TEST_DATABASE_URL"},
		},
		{
			name: "port in use",
			cfg: func(t *testing.T) PostgresConfig {
				l, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { l.Close() })
				return PostgresConfig{Dir: tempDir(t), Port: l.Addr().(*net.TCPAddr).Port}
			},
			want: ErrPortInUse, words: []string{"127.0.0.1:"},
		},
		{
			name: "initdb fails on a folder with other files",
			cfg: func(t *testing.T) PostgresConfig {
				dir := tempDir(t)
				if err := os.WriteFile(filepath.Join(dir, "stray.txt"), []byte("x"), 0o644); err != nil {
					t.Fatal(err)
				}
				return PostgresConfig{Dir: dir, DisableFsync: true, InitCacheDir: testInitCache()}
			},
			want: ErrInitdb, words: []string{"exists but is not empty"},
		},
		{
			name: "server exits during start-up",
			cfg: func(t *testing.T) PostgresConfig {
				return PostgresConfig{Dir: tempDir(t), DisableFsync: true, InitCacheDir: testInitCache(),
					Settings: map[string]string{"no_such_setting": "1"}}
			},
			want: ErrNotReady, words: []string{"exited during start-up", "server log", "no_such_setting"},
		},
		{
			name: "not ready in time",
			cfg: func(t *testing.T) PostgresConfig {
				return PostgresConfig{Dir: tempDir(t), DisableFsync: true, InitCacheDir: testInitCache(),
					ReadyTimeout: time.Millisecond}
			},
			want: ErrNotReady, words: []string{"no connection within 1ms", "server log"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := tc.cfg(t)
			cfg.Logger = testLogger(t)
			pg, err := StartPostgres(t.Context(), cfg)
			if err == nil {
				pg.Stop(stopCtx(t))
				t.Fatal("started; want an error")
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v; want %v", err, tc.want)
			}
			t.Log(err)
			for _, w := range tc.words {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("message lacks %q:\n%v", w, err)
				}
			}
			if pids := processesIn(cfg.Dir); len(pids) > 0 {
				t.Errorf("processes %v left in %s", pids, cfg.Dir)
			}
		})
	}
}

// A data folder below a root-only folder cannot be used by the unprivileged
// server user; the error names the folder, the blocking parent and the user.
func TestPostgresUnreachableDir(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("only root switches to an unprivileged user")
	}
	parent := tempDir(t)
	if err := os.Chmod(parent, 0o700); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(parent, "data")
	_, err := StartPostgres(t.Context(), PostgresConfig{Dir: dir, Logger: testLogger(t)})
	if !errors.Is(err, ErrDirUnreachable) {
		t.Fatalf("got %v; want ErrDirUnreachable", err)
	}
	t.Log(err)
	for _, w := range []string{dir, parent, `"postgres"`, "chmod o+x"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("message lacks %q:\n%v", w, err)
		}
	}
}
