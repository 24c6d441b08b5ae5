//go:build !linux

package bench

import "time"

// treeCPU needs Linux's /proc; elsewhere the bench prints no CPU figures.
func treeCPU() map[string]time.Duration { return nil }
