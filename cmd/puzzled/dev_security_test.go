package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"

	"github.com/puzzled/puzzled/internal/devstack"
	"github.com/puzzled/puzzled/internal/e2etest"
)

// makePreviousDevFolder fills dir as `puzzled dev` did before passwords: a
// trusting PostgreSQL with a table, and a persistent Redis with a key.
func makePreviousDevFolder(t *testing.T, dir string) {
	t.Helper()
	ctx := t.Context()
	pg, err := devstack.StartPostgres(ctx, devstack.PostgresConfig{
		Dir: filepath.Join(dir, "postgres"), InitCacheDir: filepath.Join(os.TempDir(), "puzzled-initdb-cache"),
	})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, pg.URL())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "CREATE TABLE kept (n int); INSERT INTO kept VALUES (7)"); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	r, err := devstack.StartRedis(ctx, devstack.RedisConfig{Dir: filepath.Join(dir, "redis"), Persist: true})
	if err != nil {
		t.Fatal(err)
	}
	rc := redis.NewClient(&redis.Options{Addr: r.Addr(), DisableIdentity: true})
	if err := rc.Set(ctx, "kept", "7", 0).Err(); err != nil {
		t.Fatal(err)
	}
	rc.Close()
	stopCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := r.Stop(stopCtx); err != nil {
		t.Fatal(err)
	}
	if err := pg.Stop(stopCtx); err != nil {
		t.Fatal(err)
	}
}

// apiStatus sends method url with token (none when "") and returns the status.
func apiStatus(t *testing.T, method, url, token, body string) int {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// Issue 13 item 5: dev honours the token variables as serve does, and its
// PostgreSQL and Redis ask for a password kept in the data folder, also for
// a folder made before passwords existed.
func TestDevSecuresOldFolderAndHonoursTokens(t *testing.T) {
	t.Parallel()
	dir, err := os.MkdirTemp("", "puzzled-dev-secure-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil { // the servers run as another user
		t.Fatal(err)
	}
	makePreviousDevFolder(t, dir)

	dev := e2etest.Start(t, []string{"PUZZLED_API_TOKENS=writer:tok-w", "PUZZLED_API_READONLY_TOKENS=reader:tok-r"},
		"dev", "--data-dir", dir, "--http-addr", "127.0.0.1:0")
	url := "http://" + dev.WaitLog("api listening", 2*time.Minute)["addr"].(string)
	up := dev.WaitLog("embedded stack up", time.Second)
	pgPort, redisPort := int(up["postgres_port"].(float64)), int(up["redis_port"].(float64))

	t.Run("tokens", func(t *testing.T) {
		job := `{"level":{"kind":"twoends","values":[3,1,2]}}`
		for _, c := range []struct {
			token string
			want  int
		}{{"", http.StatusUnauthorized}, {"wrong", http.StatusUnauthorized}, {"tok-r", http.StatusForbidden}, {"tok-w", http.StatusAccepted}} {
			if got := apiStatus(t, "POST", url+"/v1/jobs", c.token, job); got != c.want {
				t.Errorf("POST /v1/jobs with token %q: %d, want %d", c.token, got, c.want)
			}
		}
		if got := apiStatus(t, "GET", url+"/v1/jobs/1", "tok-r", ""); got != http.StatusOK {
			t.Errorf("GET /v1/jobs/1 with the read-only token: %d, want 200", got)
		}
	})

	pwFile := filepath.Join(dir, "password")
	fi, err := os.Stat(pwFile)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("password file: %v %v, want mode 0600", fi, err)
	}
	data, _ := os.ReadFile(pwFile)
	password := strings.TrimSpace(string(data))
	if !regexp.MustCompile(`^[0-9a-f]{48}$`).MatchString(password) {
		t.Fatalf("password %q: want 48 hex digits", password)
	}

	t.Run("banner", func(t *testing.T) {
		out := dev.Stdout()
		for _, want := range []string{
			`-H "Authorization: Bearer $TOKEN"`,
			fmt.Sprintf("psql -h 127.0.0.1 -p %d -U postgres puzzled", pgPort),
			fmt.Sprintf("redis-cli -p %d", redisPort),
			"puzzled token create",
			pwFile,
		} {
			if !strings.Contains(out, want) {
				t.Errorf("banner lacks %q:\n%s", want, out)
			}
		}
		if strings.Contains(out, password) {
			t.Errorf("banner prints the password itself:\n%s", out)
		}
	})

	t.Run("postgres", func(t *testing.T) {
		base := fmt.Sprintf("127.0.0.1:%d/puzzled?sslmode=disable", pgPort)
		for _, user := range []string{"postgres", "postgres:wrong"} {
			if conn, err := pgx.Connect(t.Context(), "postgres://"+user+"@"+base); err == nil {
				conn.Close(context.Background())
				t.Errorf("PostgreSQL took %s without the right password", user)
			}
		}
		conn, err := pgx.Connect(t.Context(), "postgres://postgres:"+password+"@"+base)
		if err != nil {
			t.Fatalf("with the password from %s: %v", pwFile, err)
		}
		defer conn.Close(context.Background())
		var n int
		if err := conn.QueryRow(t.Context(), "SELECT n FROM kept").Scan(&n); err != nil || n != 7 {
			t.Fatalf("data from before: %d, %v", n, err)
		}
	})

	t.Run("redis", func(t *testing.T) {
		addr := fmt.Sprintf("127.0.0.1:%d", redisPort)
		open := redis.NewClient(&redis.Options{Addr: addr, DisableIdentity: true})
		defer open.Close()
		if err := open.Ping(t.Context()).Err(); err == nil || !strings.Contains(err.Error(), "NOAUTH") {
			t.Errorf("Redis PING without password: %v, want NOAUTH", err)
		}
		authed := redis.NewClient(&redis.Options{Addr: addr, Password: password, DisableIdentity: true})
		defer authed.Close()
		if v, err := authed.Get(t.Context(), "kept").Result(); err != nil || v != "7" {
			t.Fatalf("data from before: %q, %v", v, err)
		}
	})

	t.Run("token create as the banner says", func(t *testing.T) {
		cmd := exec.Command(e2etest.Binary(t), "token", "create", "--name", "from-banner")
		cmd.Env = append(os.Environ(), fmt.Sprintf("PUZZLED_DATABASE_URL=postgres://postgres:%s@127.0.0.1:%d/puzzled?sslmode=disable", password, pgPort))
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("token create: %v", err)
		}
		token := strings.TrimSpace(string(out))
		if got := apiStatus(t, "GET", url+"/v1/jobs/1", token, ""); got != http.StatusOK {
			t.Errorf("GET /v1/jobs/1 with the new token: %d, want 200", got)
		}
	})
}
