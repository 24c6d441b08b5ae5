package solveproc

import (
	"fmt"
	"strconv"
)

// Priority is the CPU priority a child process gives its threads.
type Priority struct {
	// Idle: the SCHED_IDLE policy. The kernel runs such threads only on
	// CPU time no other thread wants, preempts them at once when one
	// wakes, and places a waking thread on a CPU that runs only them as
	// on an idle one. Measured against niceness 10 (docs/queries.md):
	// the same median latency of interactive jobs, a p95 about 40 %
	// lower; but it starves when other work keeps every CPU busy.
	Idle bool
	// Nice is the niceness (0–19) when not Idle.
	Nice int
}

// ParsePriority reads "idle" or a niceness "0"–"19".
func ParsePriority(s string) (Priority, error) {
	if s == "idle" {
		return Priority{Idle: true}, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 19 {
		return Priority{}, fmt.Errorf("solveproc: priority %q: want \"idle\" or a niceness 0–19", s)
	}
	return Priority{Nice: n}, nil
}

func (p Priority) String() string {
	if p.Idle {
		return "idle"
	}
	return strconv.Itoa(p.Nice)
}
