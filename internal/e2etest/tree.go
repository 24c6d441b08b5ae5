package e2etest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// procID names a process by pid and start time, so that a pid reused by
// another process is not taken for it.
type procID struct {
	pid   int
	start string // field 22 of /proc/<pid>/stat, in clock ticks since boot
}

// statFields are the fields of /proc/<pid>/stat after the command name
// (state is [0], ppid [1], start time [19]); nil when the process is gone.
func statFields(pid int) []string {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return nil
	}
	i := strings.LastIndexByte(string(data), ')') // the name may hold spaces and parentheses
	if i < 0 {
		return nil
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 20 {
		return nil
	}
	return f
}

// alive reports whether the process still runs (a zombie counts as gone).
func (p procID) alive() bool {
	f := statFields(p.pid)
	return f != nil && f[19] == p.start && f[0] != "Z"
}

// kill sends SIGKILL to the process and to the group it leads, if it still
// is the same process, and waits up to five seconds for it to be gone.
func (p procID) kill() {
	if !p.alive() {
		return
	}
	_ = syscall.Kill(-p.pid, syscall.SIGKILL) // fails harmlessly when it leads no group
	_ = syscall.Kill(p.pid, syscall.SIGKILL)
	for deadline := time.Now().Add(5 * time.Second); p.alive() && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
}

// descendants lists every process below pid (children, their children, …)
// as the kernel shows them now; nil where /proc is missing.
func descendants(pid int) []procID {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]procID{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if f := statFields(p); f != nil {
			ppid, _ := strconv.Atoi(f[1])
			children[ppid] = append(children[ppid], procID{pid: p, start: f[19]})
		}
	}
	var out []procID
	for queue := children[pid]; len(queue) > 0; queue = queue[1:] {
		out = append(out, queue[0])
		queue = append(queue, children[queue[0].pid]...)
	}
	return out
}

// ProcessesIn lists the processes (as "pid name") whose working folder or
// command line is dir or inside it: servers left behind on a test's data.
// redis-server rewrites its command line, so its working folder (its --dir)
// is what finds it.
func ProcessesIn(dir string) []string {
	entries, _ := os.ReadDir("/proc")
	var found []string
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		base := filepath.Join("/proc", e.Name())
		cwd, _ := os.Readlink(filepath.Join(base, "cwd"))
		cmdline, _ := os.ReadFile(filepath.Join(base, "cmdline"))
		if cwd == dir || strings.HasPrefix(cwd, dir+"/") || strings.HasPrefix(cwd, dir+" (deleted)") ||
			strings.Contains(string(cmdline), dir) {
			comm, _ := os.ReadFile(filepath.Join(base, "comm"))
			found = append(found, e.Name()+" "+strings.TrimSpace(string(comm)))
		}
	}
	return found
}

// Process is a process as /proc shows it now.
type Process struct {
	Pid    int
	Args   []string // its command line
	Nice   int
	Policy int           // scheduling policy: 0 normal, 5 SCHED_IDLE
	CPU    time.Duration // user and system time used so far
}

// Descendants lists the processes below p now (children, their children, …).
func (p *Proc) Descendants() []Process {
	var out []Process
	for _, d := range descendants(p.cmd.Process.Pid) {
		f := statFields(d.pid)
		cmdline, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(d.pid), "cmdline"))
		if f == nil || err != nil {
			continue // gone meanwhile
		}
		nice, _ := strconv.Atoi(f[16])
		policy := -1 // unknown on kernels before 2.5.19
		if len(f) > 38 {
			policy, _ = strconv.Atoi(f[38])
		}
		utime, _ := strconv.ParseInt(f[11], 10, 64)
		stime, _ := strconv.ParseInt(f[12], 10, 64)
		const tick = 10 * time.Millisecond // USER_HZ is 100 on Linux
		out = append(out, Process{Pid: d.pid, Args: strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00"),
			Nice: nice, Policy: policy, CPU: time.Duration(utime+stime) * tick})
	}
	return out
}

// Alive reports whether the process pid still runs (a zombie counts as gone).
func (p Process) Alive() bool {
	f := statFields(p.Pid)
	return f != nil && f[0] != "Z"
}
