package e2etest

import (
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/puzzled/puzzled/internal/waittest"
)

// A child in a process group (here a session) of its own, as the dev
// stack's servers are, is not reached by the signal to the test process's
// group; cleanup must end it anyway.
func TestCleanupEndsEveryDescendant(t *testing.T) {
	t.Parallel()
	var child procID
	t.Run("start", func(t *testing.T) {
		// sh waits on a setsid child that ignores SIGTERM, then is killed.
		cmd := exec.Command("sh", "-c", `setsid sh -c 'trap "" TERM; sleep 300' </dev/null >/dev/null 2>&1 & echo "{\"msg\":\"child\",\"pid\":$!}" >&2; wait`)
		p := startCmd(t, cmd)
		pid := int(p.WaitLog("child", time.Minute)["pid"].(float64))
		// Until setsid has run, the child is still in sh's process group
		// and the kill below reaches it: wait for it to lead a session.
		waittest.WaitFor(t, time.Minute, "the setsid child below sh, in a session of its own", func() bool {
			for _, d := range descendants(p.cmd.Process.Pid) {
				if d.pid == pid {
					child = d
				}
			}
			f := statFields(pid)
			return child.alive() && f != nil && f[3] == strconv.Itoa(pid) // field 3: session id
		})
		p.Signal(syscall.SIGKILL) // the parent dies first, as in a chaos test
		<-p.Done()
		if !child.alive() {
			t.Fatal("the setsid child died with its parent; the test proves nothing")
		}
	})
	if child.alive() {
		t.Fatalf("process %d outlived the cleanup of the test that started it", child.pid)
	}
}

func TestProcessesIn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cmd := exec.Command("sleep", "300")
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	found := ProcessesIn(dir)
	if len(found) != 1 || !strings.HasPrefix(found[0], strconv.Itoa(cmd.Process.Pid)+" ") {
		t.Fatalf("ProcessesIn(%s) = %v, want the sleep %d", dir, found, cmd.Process.Pid)
	}
}
