package worker

import (
	"runtime"
	"testing"
)

// TestPlayoutWorkers: a job's playouts get every core when it is the only
// job solving here, and only the cores the other jobs leave free, at least
// one, when it is not.
func TestPlayoutWorkers(t *testing.T) {
	// The worker raises GOMAXPROCS above the CPU count (cmd/puzzled
	// raiseMaxProcs); playouts must still count CPUs.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(runtime.NumCPU() + 3))
	procs := runtime.NumCPU()
	for _, tc := range []struct {
		solving int64 // jobs in run, this one included
		want    int
	}{
		{1, procs},
		{2, max(1, procs-1)},
		{int64(procs), 1},
		{int64(procs) + 3, 1},
		{0, procs}, // not inside run (a direct call): no other job
	} {
		var w Worker
		w.solving.Store(tc.solving)
		if got := w.playoutWorkers(); got != tc.want {
			t.Errorf("%d solving, %d cores: %d playout workers, want %d", tc.solving, procs, got, tc.want)
		}
	}
}
