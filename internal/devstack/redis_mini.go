package devstack

import (
	"errors"
	"fmt"
	"log/slog"
	"syscall"

	"github.com/alicebob/miniredis/v2"
)

// startMini runs an in-process miniredis on port (0 = a free one), asking
// for cfg.Password when set. It lives in our process, so it dies with it and
// needs no folder.
func (r *Redis) startMini(port int) error {
	return startOnPort(port, r.startMiniOn)
}

func (r *Redis) startMiniOn(port int) error {
	m := miniredis.NewMiniRedis()
	if r.cfg.Password != "" {
		m.RequireAuth(r.cfg.Password)
	}
	if err := m.StartAddr(hostPort(port)); err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return fmt.Errorf("%w: start miniredis on %s: %w", ErrPortInUse, hostPort(port), err)
		}
		return fmt.Errorf("devstack: start miniredis on %s: %w", hostPort(port), err)
	}
	r.mu.Lock()
	r.mini, r.port = m, port
	r.mu.Unlock()
	r.cfg.Logger.Info("miniredis started", slog.String("addr", hostPort(port)))
	return nil
}
