package main

import (
	"io"
	"log/slog"
	"runtime"
	"runtime/debug"
	"testing"
)

func TestTuneGC(t *testing.T) {
	discard := slog.New(slog.NewTextHandler(io.Discard, nil))
	restore := func(percent int, limit int64) {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}
	tests := []struct {
		name, gogc, gomemlimit string
		wantPercent            int
		wantLimit              bool // a limit below math.MaxInt64 set by tuneGC
	}{
		{name: "defaults", wantPercent: workerGCPercent, wantLimit: runtime.GOOS == "linux"},
		{name: "GOGC set", gogc: "150", wantPercent: 100},
		{name: "GOMEMLIMIT set", gomemlimit: "1GiB", wantPercent: workerGCPercent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("GOGC", tt.gogc)
			t.Setenv("GOMEMLIMIT", tt.gomemlimit)
			// The environment is read at start only: set what it would have set.
			beforePercent, beforeLimit := debug.SetGCPercent(100), debug.SetMemoryLimit(-1)
			defer restore(beforePercent, beforeLimit)
			noLimit := debug.SetMemoryLimit(-1)

			tuneGC(discard)

			if got := debug.SetGCPercent(100); got != tt.wantPercent {
				t.Errorf("GOGC = %d, want %d", got, tt.wantPercent)
			}
			limit := debug.SetMemoryLimit(-1)
			if tt.wantLimit && (limit == noLimit || limit <= 0) {
				t.Errorf("memory limit = %d, want one set from the machine's memory", limit)
			}
			if !tt.wantLimit && limit != noLimit {
				t.Errorf("memory limit = %d, want it left at %d", limit, noLimit)
			}
		})
	}
}

func TestMemoryAvailable(t *testing.T) {
	got := memoryAvailable()
	if runtime.GOOS != "linux" { // no /proc/meminfo: no limit
		if got != 0 {
			t.Fatalf("memoryAvailable() = %d bytes, want 0", got)
		}
		return
	}
	if got < 64<<20 {
		t.Fatalf("memoryAvailable() = %d bytes, want the machine's or cgroup's memory", got)
	}
}
