package e2etest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Proc is a puzzled subprocess whose JSON log lines a test can wait on.
type Proc struct {
	t      testing.TB
	cmd    *exec.Cmd
	mu     sync.Mutex
	logs   []map[string]any
	raw    strings.Builder
	stdout lockedBuffer
	seen   []procID // descendants found before each signal, for end
	news   chan struct{}
	done   chan struct{}
}

// EnvShowLogs, when set, has every process's log shown at cleanup, not
// only a failed test's (to see what a slow but passing test spent its time
// on).
const EnvShowLogs = "PUZZLED_TEST_SHOW_LOGS"

// CleanupGrace is how long cleanup waits for a process (and then for each
// of its descendants) to exit after SIGTERM before it sends SIGKILL.
const CleanupGrace = 10 * time.Second

// Start runs `puzzled args...` in a process group of its own, with env
// added to the environment minus every PUZZLED_ variable. At cleanup it and
// every process it started are ended (see Proc.end), and its log is shown if
// the test failed.
func Start(t testing.TB, env []string, args ...string) *Proc {
	t.Helper()
	return startCmd(t, withEnv(exec.Command(Binary(t), args...), env))
}

// StartIn is Start in network namespace netns (`ip netns exec`, which
// runs puzzled in its own place: signals reach puzzled itself).
func StartIn(t testing.TB, netns string, env []string, args ...string) *Proc {
	t.Helper()
	return startCmd(t, withEnv(exec.Command("ip", append([]string{"netns", "exec", netns, Binary(t)}, args...)...), env))
}

// withEnv gives cmd this process's environment minus every PUZZLED_
// variable, and env.
func withEnv(cmd *exec.Cmd, env []string) *exec.Cmd {
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PUZZLED_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

// startCmd starts cmd in a process group of its own, reading its stderr as
// JSON log lines, and ends it at cleanup.
func startCmd(t testing.TB, cmd *exec.Cmd) *Proc {
	t.Helper()
	cmd.SysProcAttr = procAttr()
	p := &Proc{t: t, cmd: cmd, news: make(chan struct{}, 1), done: make(chan struct{})}
	cmd.Stdout = &p.stdout
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go p.readLogs(stderr)
	t.Cleanup(func() {
		p.end(CleanupGrace)
		if t.Failed() || os.Getenv(EnvShowLogs) != "" {
			t.Logf("log of %v:\n%s", cmd.Args, p.Output())
		}
	})
	return p
}

// end ends the process and everything it started: SIGTERM to its group,
// SIGKILL after grace; then each descendant seen before (servers in groups
// of their own, which should die with their parent) gets grace to exit
// before it and its group are killed too. A test that already killed the
// process loses nothing: its descendants are looked up from /proc first.
func (p *Proc) end(grace time.Duration) {
	p.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		p.Signal(syscall.SIGKILL)
		<-p.done
	}
	p.mu.Lock()
	below := p.seen
	p.mu.Unlock()
	deadline := time.Now().Add(grace)
	for _, d := range below {
		for d.alive() && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if d.alive() {
			p.t.Logf("process %d, started by %v, outlived it by %s: killing it", d.pid, p.cmd.Args, grace)
			d.kill()
		}
	}
}

// Stdout is everything the process wrote to its standard output so far.
func (p *Proc) Stdout() string { return p.stdout.String() }

// lockedBuffer is a bytes.Buffer safe for one writer and concurrent readers.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(data []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(data)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
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

// Signal sends sig to the process group, noting first which processes run
// below it so that cleanup can end those that outlive it.
func (p *Proc) Signal(sig syscall.Signal) {
	select {
	case <-p.done: // reaped: its group id may belong to someone else by now
		return
	default:
	}
	p.noteDescendants()
	_ = syscall.Kill(-p.cmd.Process.Pid, sig)
}

// noteDescendants remembers the processes below p, for cleanup to end
// those that outlive it.
func (p *Proc) noteDescendants() {
	below := descendants(p.cmd.Process.Pid)
	p.mu.Lock()
	for _, d := range below {
		if !slices.Contains(p.seen, d) {
			p.seen = append(p.seen, d)
		}
	}
	p.mu.Unlock()
}

// KillAlone sends SIGKILL to the process alone, not to its group, as the
// kernel's OOM killer would: what it started lives on unless it ends by
// itself (cleanup still ends it).
func (p *Proc) KillAlone() {
	select {
	case <-p.done:
		return
	default:
	}
	p.noteDescendants()
	_ = p.cmd.Process.Kill()
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
