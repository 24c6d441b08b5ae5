package main

import (
	"bufio"
	"bytes"
	"log/slog"
	"os"
	"runtime/debug"
	"strconv"
)

// workerGCPercent is the garbage collector's GOGC in a worker process
// unless GOGC is set. A worker allocates about 13 KB per small job
// (results, their JSON, the statement's arrays) on a small live heap, so
// at Go's default of 100 it collects every few hundred jobs, and with
// more Ps than CPUs (raiseMaxProcs) the collector's idle mark workers take
// CPU time from the jobs: in a profile of `puzzled bench` (b), 22 % of
// the process's CPU went to marking and sweeping. At 400 a worker used
// 78–94 µs of CPU per job against 107–150 (three alternated runs).
const workerGCPercent = 400

// tuneGC sets the worker's GOGC (workerGCPercent) and, so that a live heap
// that grows (a large interactive search in this process, the API's
// batches under puzzled dev) cannot take five times its size, a soft
// memory limit of half the memory the process may use (the cgroup's limit,
// else the machine's), near which the collector runs as often as it must.
// GOGC and GOMEMLIMIT in the environment win.
func tuneGC(logger *slog.Logger) {
	if os.Getenv("GOGC") != "" {
		return
	}
	debug.SetGCPercent(workerGCPercent)
	attrs := []any{slog.Int("gogc", workerGCPercent)}
	if os.Getenv("GOMEMLIMIT") == "" {
		if total := memoryAvailable(); total > 0 {
			debug.SetMemoryLimit(total / 2)
			attrs = append(attrs, slog.Int64("memory_limit", total/2))
		}
	}
	logger.Debug("garbage collector tuned for a worker", attrs...)
}

// memoryAvailable is the memory this process may use in bytes: its
// cgroup's limit (cgroup v2) when it has one, else the machine's total;
// 0 when neither can be read.
func memoryAvailable() int64 {
	if b, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		if n, err := strconv.ParseInt(string(bytes.TrimSpace(b)), 10, 64); err == nil && n > 0 {
			return n
		}
	}
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// MemTotal:       24576000 kB
		if fields := bytes.Fields(sc.Bytes()); len(fields) == 3 && string(fields[0]) == "MemTotal:" {
			kb, err := strconv.ParseInt(string(fields[1]), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}
