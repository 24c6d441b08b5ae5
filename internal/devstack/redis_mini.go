package devstack

import (
	"fmt"
	"log/slog"

	"github.com/alicebob/miniredis/v2"
)

// startMini runs an in-process miniredis on port (0 = a free one), asking
// for cfg.Password when set. It lives in our process, so it dies with it and
// needs no folder.
func (r *Redis) startMini(port int) error {
	port, err := pickPort(port)
	if err != nil {
		return err
	}
	m := miniredis.NewMiniRedis()
	if r.cfg.Password != "" {
		m.RequireAuth(r.cfg.Password)
	}
	if err := m.StartAddr(hostPort(port)); err != nil {
		return fmt.Errorf("devstack: start miniredis on %s: %w", hostPort(port), err)
	}
	r.mu.Lock()
	r.mini, r.port = m, port
	r.mu.Unlock()
	r.cfg.Logger.Info("miniredis started", slog.String("addr", hostPort(port)))
	return nil
}
