package main

import (
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/puzzled/puzzled/internal/e2etest"
)

// Issue 13 item 9: -h is a request, not an error: exit 0 with the usage.
func TestHelpExitsZeroWithUsage(t *testing.T) {
	t.Parallel()
	bin := e2etest.Binary(t)
	tests := []struct {
		args []string
		want string // in the output
	}{
		{[]string{"-h"}, "usage: puzzled <command>"},
		{[]string{"--help"}, "usage: puzzled <command>"},
		{[]string{"serve", "-h"}, "-http-addr"},
		{[]string{"serve", "--help"}, "-max-batch-body"},
		{[]string{"work", "-h"}, "-concurrency"},
		{[]string{"work", "--help"}, "-dead-after"},
		{[]string{"dev", "-h"}, "-data-dir"},
		{[]string{"migrate", "-h"}, "-database-url"},
		{[]string{"token", "-h"}, "usage: puzzled token create"},
		{[]string{"token", "create", "-h"}, "-read-only"},
		{[]string{"health", "-h"}, "usage: puzzled health"},
		{[]string{"bench", "-h"}, "-jobs"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			out, err := exec.Command(bin, tc.args...).CombinedOutput()
			if err != nil {
				t.Fatalf("%v: %v\n%s", tc.args, err, out)
			}
			if !strings.Contains(string(out), tc.want) || strings.Contains(string(out), "help requested") {
				t.Fatalf("%v printed:\n%s\nwant %q and no \"help requested\"", tc.args, out, tc.want)
			}
		})
	}
}

// A wrong flag or command is still an error.
func TestBadUsageExitsNonZero(t *testing.T) {
	t.Parallel()
	bin := e2etest.Binary(t)
	for _, args := range [][]string{{"nosuch"}, {"serve", "--nosuch"}, {"token"}, {"health", "a", "b"}} {
		err := exec.Command(bin, args...).Run()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() == 0 {
			t.Errorf("%v: %v, want a non-zero exit", args, err)
		}
	}
}

// A --dead-after shorter than three heartbeats would have workers take
// live ones for dead: work refuses it before it connects to anything.
func TestWorkRefusesADeadAfterOfLessThanThreeBeats(t *testing.T) {
	t.Parallel()
	out, err := exec.Command(e2etest.Binary(t), "work", "--dead-after", "2s", "--start-timeout", "1s",
		"--database-url", "postgres://127.0.0.1:1/none").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "--dead-after 2s: at least 3s (three heartbeats)") {
		t.Fatalf("work --dead-after 2s: %v\n%s", err, out)
	}
}
