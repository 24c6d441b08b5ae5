package main

// The minimum of cmd/puzzled/proc_test.go that the end-to-end tests need:
// build puzzled once, run `serve` and `work` as subprocesses on databases
// of the test's own, and wait for their JSON log lines.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/puzzled/puzzled/internal/testenv"
)

func TestMain(m *testing.M) { os.Exit(testenv.Run(m)) }

// puzzledBinary builds cmd/puzzled once per test binary.
var puzzledBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "puzzlectl-test-bin-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "puzzled")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/puzzled/puzzled/cmd/puzzled").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build puzzled: %w\n%s", err, out)
	}
	return bin, nil
})

// proc is a puzzled subprocess whose JSON log lines the test can wait on.
type proc struct {
	t    testing.TB
	cmd  *exec.Cmd
	mu   sync.Mutex
	logs []map[string]any
	raw  strings.Builder
	news chan struct{}
	done chan struct{}
}

// startProc runs `puzzled args...` with env added to an environment
// without PUZZLED_ variables; it is killed at cleanup.
func startProc(t testing.TB, env []string, args ...string) *proc {
	t.Helper()
	bin, err := puzzledBinary()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PUZZLED_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stdout = io.Discard
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &proc{t: t, cmd: cmd, news: make(chan struct{}, 1), done: make(chan struct{})}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go p.readLogs(stderr)
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
		if t.Failed() {
			t.Logf("log of puzzled %v:\n%s", args, p.output())
		}
	})
	return p
}

func (p *proc) readLogs(r io.Reader) {
	defer close(p.done)
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		_ = json.Unmarshal(sc.Bytes(), &m)
		p.mu.Lock()
		p.raw.WriteString(sc.Text() + "\n")
		if m != nil {
			p.logs = append(p.logs, m)
		}
		p.mu.Unlock()
		select {
		case p.news <- struct{}{}:
		default:
		}
	}
	_ = p.cmd.Wait()
}

func (p *proc) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.raw.String()
}

// waitLog waits for a log line whose msg is msg and returns it.
func (p *proc) waitLog(msg string, timeout time.Duration) map[string]any {
	p.t.Helper()
	deadline := time.After(timeout)
	for seen := 0; ; {
		p.mu.Lock()
		for ; seen < len(p.logs); seen++ {
			if p.logs[seen]["msg"] == msg {
				m := p.logs[seen]
				p.mu.Unlock()
				return m
			}
		}
		p.mu.Unlock()
		select {
		case <-p.news:
		case <-p.done:
			p.t.Fatalf("puzzled exited before logging %q:\n%s", msg, p.output())
		case <-deadline:
			p.t.Fatalf("no %q log line within %v:\n%s", msg, timeout, p.output())
		}
	}
}

// startStack starts `puzzled serve` and `puzzled work` on a database and a
// Redis DB of the test's own and returns the API's base URL.
func startStack(t *testing.T) (url, databaseURL string) {
	t.Helper()
	addr, db := testenv.RedisAddr(t)
	databaseURL = testenv.PostgresURL(t)
	env := []string{
		"PUZZLED_DATABASE_URL=" + databaseURL,
		"PUZZLED_REDIS_ADDR=" + addr,
		fmt.Sprintf("PUZZLED_REDIS_DB=%d", db),
		"PUZZLED_HTTP_ADDR=127.0.0.1:0",
		"PUZZLED_CONCURRENCY=2",
	}
	serve := startProc(t, env, "serve")
	url = "http://" + serve.waitLog("api listening", 60*time.Second)["addr"].(string)
	work := startProc(t, env, "work")
	work.waitLog("worker started", 60*time.Second)
	return url, databaseURL
}
