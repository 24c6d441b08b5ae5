package devstack

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/puzzled/puzzled/internal/waittest"
)

// The helper process: when DEVSTACK_HELPER is set, this test binary starts a
// server, prints "READY <pid> <port>" and waits to be killed.
func TestHelperProcess(t *testing.T) {
	kind := os.Getenv("DEVSTACK_HELPER")
	if kind == "" {
		return
	}
	dir := os.Getenv("DEVSTACK_HELPER_DIR")
	ctx := context.Background()
	var pid, port int
	switch kind {
	case "postgres":
		// fsync on, as for `puzzled dev` data: what was committed must survive.
		pg, err := StartPostgres(ctx, PostgresConfig{Dir: dir, InitCacheDir: testInitCache()})
		if err != nil {
			fmt.Println("ERROR", err)
			os.Exit(1)
		}
		execSQL(t, pg.URL(), "CREATE TABLE kept (n int); INSERT INTO kept VALUES (7)")
		pid, port = pg.PID(), pg.Port()
	case "redis", "redis-persist":
		r, err := StartRedis(ctx, RedisConfig{Dir: dir, Persist: kind == "redis-persist", Password: "pw"})
		if err != nil {
			fmt.Println("ERROR", err)
			os.Exit(1)
		}
		pid, port = r.PID(), r.Port()
	}
	fmt.Printf("READY %d %d\n", pid, port)
	time.Sleep(time.Hour)
}

// startHelper runs the helper process and returns it with its server's pid.
func startHelper(t *testing.T, kind, dir string) (*exec.Cmd, int, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), "DEVSTACK_HELPER="+kind, "DEVSTACK_HELPER_DIR="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	var pid, port int
	if _, scanErr := fmt.Sscanf(line, "READY %d %d", &pid, &port); err != nil || scanErr != nil || pid == 0 {
		t.Fatalf("helper said %q (%v)", line, err)
	}
	return cmd, pid, port
}

// killHelper SIGKILLs the helper and reaps it.
func killHelper(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
}

// Pdeathsig must survive the switch to the unprivileged user, the stale
// postmaster.pid must not block the next start, and committed data survives.
func TestPostgresDiesWithParent(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	helper, pid, _ := startHelper(t, "postgres", dir)
	if os.Geteuid() == 0 {
		uid := procUID(t, pid)
		if uid == 0 {
			t.Fatalf("postmaster %d runs as root", pid)
		}
	}
	killHelper(t, helper)
	waittest.WaitFor(t, time.Minute, "postmaster to die with its parent", func() bool { return !alive(pid) })
	waittest.WaitFor(t, time.Minute, "all server processes to exit", func() bool { return len(processesIn(dir)) == 0 })

	pg := startTestPostgresIn(t, PostgresConfig{Dir: dir})
	if n := query(t, pg.URL(), "SELECT n FROM kept"); n != 7 {
		t.Fatalf("after crash and restart got %d, want 7", n)
	}
}

func TestRedisDiesWithParent(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	helper, pid, port := startHelper(t, "redis", dir)
	killHelper(t, helper)
	waittest.WaitFor(t, time.Minute, "redis-server to die with its parent", func() bool { return !alive(pid) })
	waittest.WaitFor(t, time.Minute, "the port to be free", func() bool { return checkPortFree(port) == nil })
}

// procUID reads the real uid of pid from /proc.
func procUID(t *testing.T, pid int) int {
	t.Helper()
	data, err := os.ReadFile("/proc/" + itoa(pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "Uid:"); ok {
			var uid int
			fmt.Sscan(rest, &uid)
			return uid
		}
	}
	t.Fatalf("no Uid in /proc/%d/status", pid)
	return -1
}

// A persistent redis-server saves on SIGTERM and, by default, refuses to
// exit when that save fails: with its folder gone (a test's cleanup removed
// it) it would outlive its parent, unowned. It must exit all the same.
func TestPersistentRedisDiesWithParentWithoutItsFolder(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	helper, pid, _ := startHelper(t, "redis-persist", dir)
	t.Cleanup(func() { // leave nothing behind when the test fails
		if alive(pid) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	killHelper(t, helper)
	waittest.WaitFor(t, time.Minute, "redis-server to die with its parent although its final save fails", func() bool { return !alive(pid) })
}
