package e2e

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Proc is a puzzled subprocess whose JSON log lines a test can wait on.
type Proc struct {
	t    testing.TB
	cmd  *exec.Cmd
	mu   sync.Mutex
	logs []map[string]any
	raw  strings.Builder
	news chan struct{}
	done chan struct{}
}

// Start runs `puzzled args...` in a process group of its own, with env
// added to the environment minus every PUZZLED_ variable. It is killed at
// cleanup, and its log is shown if the test failed.
func Start(t testing.TB, env []string, args ...string) *Proc {
	t.Helper()
	cmd := exec.Command(Binary(t), args...)
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
	p := &Proc{t: t, cmd: cmd, news: make(chan struct{}, 1), done: make(chan struct{})}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go p.readLogs(stderr)
	t.Cleanup(func() {
		p.Signal(syscall.SIGKILL)
		<-p.done
		if t.Failed() {
			t.Logf("log of puzzled %v:\n%s", args, p.Output())
		}
	})
	return p
}

func (p *Proc) readLogs(r io.Reader) {
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

// Done is closed when the process has exited.
func (p *Proc) Done() <-chan struct{} { return p.done }

// ExitCode is the exit status, once Done is closed.
func (p *Proc) ExitCode() int { return p.cmd.ProcessState.ExitCode() }

// Output is everything the process logged so far.
func (p *Proc) Output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.raw.String()
}

// HasLog reports whether a log line with this msg was written.
func (p *Proc) HasLog(msg string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, l := range p.logs {
		if l["msg"] == msg {
			return true
		}
	}
	return false
}

// WaitLog waits for a log line whose msg is msg and returns it.
func (p *Proc) WaitLog(msg string, timeout time.Duration) map[string]any {
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
			p.t.Fatalf("process exited before logging %q:\n%s", msg, p.Output())
		case <-deadline:
			p.t.Fatalf("no %q log line within %v:\n%s", msg, timeout, p.Output())
		}
	}
}

// Signal sends sig to the process group.
func (p *Proc) Signal(sig syscall.Signal) {
	if p.cmd.Process != nil {
		_ = syscall.Kill(-p.cmd.Process.Pid, sig)
	}
}

// Stop sends SIGTERM and waits for a clean exit.
func (p *Proc) Stop(timeout time.Duration) {
	p.t.Helper()
	p.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(timeout):
		p.t.Fatalf("process did not exit within %v of SIGTERM", timeout)
	}
	if code := p.ExitCode(); code != 0 {
		p.t.Fatalf("exit code %d after SIGTERM:\n%s", code, p.Output())
	}
}
