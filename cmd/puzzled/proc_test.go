package main

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

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

func TestMain(m *testing.M) { os.Exit(testenv.Run(m)) }

// puzzledBinary builds cmd/puzzled once per test binary.
func puzzledBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "puzzled-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "puzzled")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

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

// startProc runs `puzzled args...` with env added to a clean environment.
func startProc(t testing.TB, env []string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(puzzledBinary(t), args...)
	cmd.Env = append(cleanEnv(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = io.Discard
	p := &proc{t: t, cmd: cmd, news: make(chan struct{}, 1), done: make(chan struct{})}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go p.readLogs(stderr)
	t.Cleanup(func() {
		p.signal(syscall.SIGKILL)
		<-p.done
		if t.Failed() {
			t.Logf("log of puzzled %v:\n%s", args, p.output())
		}
	})
	return p
}

// cleanEnv is the environment without any PUZZLED_ variable.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PUZZLED_") {
			env = append(env, kv)
		}
	}
	return env
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
			p.t.Fatalf("process exited before logging %q:\n%s", msg, p.output())
		case <-deadline:
			p.t.Fatalf("no %q log line within %v:\n%s", msg, timeout, p.output())
		}
	}
}

func (p *proc) signal(sig syscall.Signal) {
	if p.cmd.Process != nil {
		_ = syscall.Kill(-p.cmd.Process.Pid, sig)
	}
}

// stop sends SIGTERM and waits for a clean exit.
func (p *proc) stop(timeout time.Duration) {
	p.t.Helper()
	p.signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(timeout):
		p.t.Fatalf("process did not exit within %v of SIGTERM", timeout)
	}
	if code := p.cmd.ProcessState.ExitCode(); code != 0 {
		p.t.Fatalf("exit code %d after SIGTERM:\n%s", code, p.output())
	}
}

// stack is a running serve + work pair on databases of the test's own.
type stack struct {
	url         string // API base URL
	serve, work *proc
	databaseURL string
	redisAddr   string
	redisDB     int
	extraEnv    []string
}

func (s *stack) env() []string {
	return append([]string{
		"PUZZLED_DATABASE_URL=" + s.databaseURL,
		"PUZZLED_REDIS_ADDR=" + s.redisAddr,
		fmt.Sprintf("PUZZLED_REDIS_DB=%d", s.redisDB),
		"PUZZLED_HTTP_ADDR=127.0.0.1:0",
	}, s.extraEnv...)
}

// startStack starts `serve` and `work` as subprocesses on a database and
// Redis DB of the test's own on the shared test servers.
func startStack(t *testing.T, extraEnv ...string) *stack {
	t.Helper()
	s := &stack{databaseURL: testenv.PostgresURL(t), extraEnv: extraEnv}
	s.redisAddr, s.redisDB = testenv.RedisAddr(t)
	s.start(t)
	return s
}

func (s *stack) start(t *testing.T) {
	t.Helper()
	s.serve = startProc(t, s.env(), "serve")
	s.url = "http://" + s.serve.waitLog("api listening", 60*time.Second)["addr"].(string)
	s.work = s.startWorker(t)
}

// startWorker starts one more `puzzled work`.
func (s *stack) startWorker(t *testing.T) *proc {
	t.Helper()
	w := startProc(t, s.env(), "work")
	w.waitLog("worker started", 60*time.Second)
	return w
}
