package worker

import (
	"runtime"

	"github.com/puzzled/puzzled/solver/difficulty"
)

// playouts is the number of playouts per player of a job's difficulty
// figures: the job's own option (nil: the worker's default, 0: none), or
// none at all when the worker is configured without figures.
func (w *Worker) playouts(job *int) int {
	switch {
	case w.cfg.DifficultyPlayouts < 0:
		return 0
	case job != nil:
		return max(*job, 0)
	case w.cfg.DifficultyPlayouts == 0:
		return difficulty.DefaultPlayouts
	}
	return w.cfg.DifficultyPlayouts
}

// playoutWorkers is how many goroutines the playouts of one job get: the
// cores that the other jobs solving in this process leave free, at least
// one. An idle worker rates on every core; a busy one does not make its
// solves compete with playouts. The figures do not depend on it (playout
// i has its own seed), only their speed does. Cores, not GOMAXPROCS: the
// worker raises GOMAXPROCS above the CPU count for its slots' sake.
func (w *Worker) playoutWorkers() int { return w.freeCores() }

// freeCores is how many cores the jobs solving in this process leave to
// the one starting now, at least one: its search threads
// (solver.Options.Threads: a sheep level on an idle worker gets a second
// search beside its own) and its playouts.
func (w *Worker) freeCores() int {
	others := int(w.solving.Load()) - 1
	return max(1, cores()-max(others, 0))
}

// cores is how many CPUs this process may run on at once.
func cores() int { return min(runtime.NumCPU(), runtime.GOMAXPROCS(0)) }
