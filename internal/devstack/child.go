package devstack

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// killGrace is how long stop waits for a clean exit when its context has no
// earlier deadline, before it kills the whole process group.
const killGrace = 30 * time.Second

// childSpec describes a server process to start.
type childSpec struct {
	name        string // for logs and errors: "postgres", "redis-server"
	path        string
	args        []string
	runAs       *account
	deathSignal syscall.Signal // sent to the child when our thread dies
	logger      *slog.Logger
}

// child is a running server process in a process group of its own.
type child struct {
	name    string
	cmd     *exec.Cmd
	tail    *logTail
	exited  chan struct{} // closed once the process has been reaped
	waitErr error         // valid after exited is closed
}

// startChild starts spec with its output captured in a logTail.
func startChild(spec childSpec) (*child, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("devstack: %s: output pipe: %w", spec.name, err)
	}
	cmd := exec.Command(spec.path, spec.args...)
	cmd.Dir = "/"
	cmd.Env = childEnv()
	cmd.Stdout, cmd.Stderr = w, w
	cmd.SysProcAttr = procAttr(spec.runAs, spec.deathSignal)
	err = startOnSpawner(cmd)
	w.Close()
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("devstack: start %s: %w", spec.path, err)
	}
	c := &child{name: spec.name, cmd: cmd, exited: make(chan struct{})}
	c.tail = newLogTail(r, spec.logger, spec.name)
	go func() {
		c.waitErr = cmd.Wait()
		close(c.exited)
	}()
	return c, nil
}

// childEnv is our environment without libpq's PG* variables, which could
// otherwise change what initdb and postgres do.
func childEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PG") {
			env = append(env, kv)
		}
	}
	return env
}

// pid is the process id of the child, which is also its process group id.
func (c *child) pid() int { return c.cmd.Process.Pid }

// running reports whether the child has not exited yet.
func (c *child) running() bool {
	select {
	case <-c.exited:
		return false
	default:
		return true
	}
}

// stop sends sig and waits for the child to exit. When ctx ends first (or
// after killGrace), the whole process group is killed.
func (c *child) stop(ctx context.Context, sig syscall.Signal) error {
	if c.running() {
		_ = syscall.Kill(c.pid(), sig)
	}
	grace := time.NewTimer(killGrace)
	defer grace.Stop()
	select {
	case <-c.exited:
		c.reapGroup()
		return nil
	case <-ctx.Done():
		c.kill()
		return fmt.Errorf("devstack: %s did not stop in time and was killed: %w", c.name, ctx.Err())
	case <-grace.C:
		c.kill()
		return fmt.Errorf("devstack: %s did not stop within %s and was killed", c.name, killGrace)
	}
}

// kill sends SIGKILL to the whole process group and waits until the child has
// been reaped and its output drained.
func (c *child) kill() {
	if c.running() {
		_ = syscall.Kill(-c.pid(), syscall.SIGKILL)
	}
	<-c.exited
	c.reapGroup()
}

// reapGroup waits until every process of the group has closed the output pipe,
// and kills the group when some member lingers. The group id cannot be reused
// while a member holds the pipe, so the kill cannot hit a stranger.
func (c *child) reapGroup() {
	select {
	case <-c.tail.done:
		return
	case <-time.After(2 * time.Second):
	}
	_ = syscall.Kill(-c.pid(), syscall.SIGKILL)
	select {
	case <-c.tail.done:
	case <-time.After(5 * time.Second):
	}
}

// exitError describes how the child ended, for start-up errors.
func (c *child) exitError() error {
	if c.waitErr == nil {
		return errors.New("exited with status 0")
	}
	return c.waitErr
}
