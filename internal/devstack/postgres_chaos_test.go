package devstack

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/puzzled/puzzled/internal/waittest"
)

// SIGKILL of the server's whole process group, as the OOM killer or a crash
// would do it: nothing may be left running, and the next start recovers
// despite the stale postmaster.pid.
func TestPostgresProcessGroupKillLeavesNothing(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	pg := startTestPostgres(t, dir)
	execSQL(t, pg.URL(), "CREATE TABLE kept (n int); INSERT INTO kept VALUES (42)")
	execSQL(t, pg.URL(), "CHECKPOINT") // fsync and synchronous_commit are off: make the commit durable
	pid := pg.PID()
	if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waittest.WaitFor(t, time.Minute, "the process group to be gone", func() bool {
		return !alive(pid) && len(processesIn(dir)) == 0
	})
	if _, err := os.Stat(filepath.Join(dir, "postmaster.pid")); err != nil {
		t.Fatalf("expected a stale postmaster.pid after SIGKILL: %v", err)
	}
	if err := pg.Restart(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := query(t, pg.URL(), "SELECT n FROM kept"); n != 42 {
		t.Fatalf("after kill and restart got %d, want 42", n)
	}
}

// Kill is the API form of the same crash.
func TestPostgresKillThenRestart(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	pg := startTestPostgres(t, dir)
	pid := pg.PID()
	pg.Kill()
	if alive(pid) || len(processesIn(dir)) > 0 {
		t.Fatalf("processes left after Kill: postmaster alive=%v, in dir: %v", alive(pid), processesIn(dir))
	}
	if pg.PID() != 0 {
		t.Fatalf("PID after Kill = %d, want 0", pg.PID())
	}
	if err := pg.Restart(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := query(t, pg.URL(), "SELECT 1"); n != 1 {
		t.Fatal("no answer after restart")
	}
}

// A postmaster.pid naming a live process that has nothing to do with the
// data folder (its pid was reused after a crash) must not block the start:
// postgres alone would refuse with "lock file already exists".
func TestPostgresStalePidFileOfUnrelatedLiveProcess(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	pg := startTestPostgres(t, dir)
	pg.Kill()

	sleeper := exec.Command("sleep", "60")
	sleeper.SysProcAttr = procAttr(pg.runAs, syscall.SIGKILL) // same user as the server
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sleeper.Process.Kill(); sleeper.Wait() })
	pidFile := filepath.Join(dir, "postmaster.pid")
	if err := os.WriteFile(pidFile, []byte(itoa(sleeper.Process.Pid)+"\n"+dir+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := chownTree(dir, pg.runAs, true); err != nil {
		t.Fatal(err)
	}
	if err := pg.Restart(t.Context()); err != nil {
		t.Fatal(err)
	}
}
