package devstack

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// sigterm makes redis-server shut down cleanly (saving when persistent).
const sigterm = syscall.SIGTERM

// start runs redis-server on port (0 = a free one, retried when another
// process grabs it first) and waits until it answers PING.
func (r *Redis) start(ctx context.Context, port int) error {
	return startOnPort(port, func(port int) error { return r.startOn(ctx, port) })
}

func (r *Redis) startOn(ctx context.Context, port int) error {
	began := time.Now()
	conf, err := r.writeConf()
	if err != nil {
		return err
	}
	c, err := startChild(childSpec{
		name:        "redis-server",
		path:        r.binary,
		args:        r.serverArgs(conf, port),
		runAs:       r.runAs,
		deathSignal: sigterm,
		logger:      r.cfg.Logger,
	})
	if err != nil {
		return err
	}
	if err := r.waitReady(ctx, c, port); err != nil {
		c.kill()
		return err
	}
	r.mu.Lock()
	r.proc, r.port = c, port
	r.mu.Unlock()
	r.cfg.Logger.Info("redis started",
		slog.String("addr", hostPort(port)), slog.Int("pid", c.pid()), slog.Duration("took", time.Since(began)))
	return nil
}

// serverArgs are the redis-server command-line arguments, after the
// configuration file conf when there is one.
func (r *Redis) serverArgs(conf string, port int) []string {
	var args []string
	if conf != "" {
		args = append(args, conf)
	}
	// Protected mode refuses every client but loopback's while the server
	// has no password; ExtraBind asks for others.
	protected := "yes"
	if len(r.cfg.ExtraBind) > 0 {
		protected = "no"
	}
	args = append(args, "--port", strconv.Itoa(port), "--bind", loopback)
	args = append(args, r.cfg.ExtraBind...)
	args = append(args,
		"--protected-mode", protected,
		"--daemonize", "no",
		"--dir", r.cfg.Dir,
		"--logfile", "",
		"--unixsocket", "",
		"--maxmemory-policy", "noeviction",
	)
	if r.major >= 7 {
		// SIGTERM, also the parent-death signal, must end the server even
		// when its final save fails (its folder removed, a full disk): a
		// server that stays would outlive us, unowned.
		args = append(args, "--shutdown-on-sigterm", "force")
	}
	if r.cfg.Persist {
		return append(args, "--appendonly", "yes", "--appendfsync", "everysec",
			"--save", "3600 1 300 100 60 10000")
	}
	return append(args, "--appendonly", "no", "--save", "")
}

// waitReady polls PING until it answers, the process exits, or
// cfg.ReadyTimeout passes.
func (r *Redis) waitReady(ctx context.Context, c *child, port int) error {
	ctx, cancel := context.WithTimeout(ctx, r.cfg.ReadyTimeout)
	defer cancel()
	var lastErr error
	for {
		if lastErr = pingRedis(ctx, hostPort(port), r.cfg.Password); lastErr == nil {
			return nil
		}
		select {
		case <-c.exited:
			return r.startFailure(c, port, fmt.Errorf("redis-server exited during start-up: %w", c.exitError()))
		case <-ctx.Done():
			return r.startFailure(c, port, fmt.Errorf("no PING answer within %s (last error: %w)", r.cfg.ReadyTimeout, lastErr))
		case <-time.After(pollInterval):
		}
	}
}

// pingRedis sends AUTH (when password is set) and PING on a new connection
// and expects +PONG; a server still loading its data answers -LOADING
// instead.
func pingRedis(ctx context.Context, addr, password string) error {
	d := net.Dialer{Timeout: time.Second}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(time.Second))
	rd := bufio.NewReader(conn)
	if password != "" {
		auth := fmt.Sprintf("*2\r\n$4\r\nAUTH\r\n$%d\r\n%s\r\n", len(password), password)
		if _, err := conn.Write([]byte(auth)); err != nil {
			return err
		}
		line, err := rd.ReadString('\n')
		if err != nil {
			return err
		}
		if strings.TrimSpace(line) != "+OK" {
			return fmt.Errorf("AUTH answered %q", strings.TrimSpace(line))
		}
	}
	if _, err := conn.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := rd.ReadString('\n')
	if err != nil {
		return err
	}
	if strings.TrimSpace(line) != "+PONG" {
		return fmt.Errorf("PING answered %q", strings.TrimSpace(line))
	}
	return nil
}

// startFailure builds the start-up error with the server's log tail.
func (r *Redis) startFailure(c *child, port int, cause error) error {
	if !c.running() {
		<-c.tail.done
	}
	kind := ErrNotReady
	if c.tail.contains("Address already in use") {
		kind = ErrPortInUse
	}
	return fmt.Errorf("%w: redis-server in %s on port %d: %w\n--- server log (tail) ---\n%s",
		kind, r.cfg.Dir, port, cause, tailOrNone(c.tail))
}
