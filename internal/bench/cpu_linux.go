package bench

import (
	"bytes"
	"os"
	"strconv"
	"time"
)

// treeCPU returns the CPU time (user+system) used so far by this process
// and each of its descendants, summed by command name; a process's ended
// children count under its name. It reads /proc, so
// it works on Linux only; the bench uses it to show where each job's CPU
// goes, a figure that a busy machine disturbs far less than throughput.
func treeCPU() map[string]time.Duration {
	type proc struct {
		comm  string
		ppid  int
		ticks int64
	}
	procs := map[int]proc{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid … utime(14) stime(15); comm may hold spaces.
		open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
		if open < 0 || end < open {
			continue
		}
		f := bytes.Fields(b[end+1:])
		if len(f) < 13 {
			continue
		}
		ppid, _ := strconv.Atoi(string(f[1]))
		// utime, stime, and cutime, cstime: the time of its children that
		// ended and were waited for (solve processes, PostgreSQL backends).
		var ticks int64
		for _, i := range []int{11, 12, 13, 14} {
			v, _ := strconv.ParseInt(string(f[i]), 10, 64)
			ticks += v
		}
		procs[pid] = proc{comm: string(b[open+1 : end]), ppid: ppid, ticks: ticks}
	}
	self := os.Getpid()
	inTree := func(pid int) bool {
		for range 64 {
			if pid == self {
				return true
			}
			p, ok := procs[pid]
			if !ok || p.ppid == 0 {
				return false
			}
			pid = p.ppid
		}
		return false
	}
	const tick = 10 * time.Millisecond // USER_HZ is 100 on Linux
	out := map[string]time.Duration{}
	for pid, p := range procs {
		if inTree(pid) {
			name := p.comm
			if name == "postgres" {
				name = postgresRole(pid)
			}
			out[name] += time.Duration(p.ticks) * tick
		}
	}
	return out
}

// postgresRole names a PostgreSQL process by what its command line says it
// is ("postgres: walwriter", "postgres: autovacuum worker", a backend's
// "postgres: user db host activity"), as "postgres: <role>"; printCPU sums
// them as postgres and shows the parts. The postmaster's figure holds the
// CPU of its children that ended: autovacuum workers, and connections
// closed before the reading (a phase's worker closes its pool at the end,
// so its backends' CPU can move there from "backends").
func postgresRole(pid int) string {
	cmd, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	rest, ok := bytes.CutPrefix(cmd, []byte("postgres: "))
	if err != nil || !ok {
		return "postgres: postmaster and ended children"
	}
	for _, role := range []string{"autovacuum worker", "autovacuum launcher", "walwriter", "background writer",
		"checkpointer", "logical replication launcher", "archiver"} {
		if bytes.HasPrefix(rest, []byte(role)) {
			return "postgres: " + role
		}
	}
	return "postgres: backends"
}
