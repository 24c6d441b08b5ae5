package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/puzzled/puzzled/api/client"
	"github.com/puzzled/puzzled/jobtype"
)

// TestReplayFile solves a level locally and prints its states.
func TestReplayFile(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "level.json")
	if err := os.WriteFile(file, []byte(`{"kind":"twoends","values":[3,1,2]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"replay", "--step", "1", file}, exitOK, "twoends 1\nrow 1 2\nfirst 3\nsecond 0\nturn second\n"},
		{[]string{"replay", file}, exitOK, "twoends 0\nrow 3 1 2\nfirst 0\nsecond 0\nturn first\n\ntwoends 1\n"},
		{[]string{"replay", "--step", "4", file}, exitError, ""},
		{[]string{"replay"}, exitError, ""},
		{[]string{"replay", "--job", "1", file}, exitError, ""},
	}
	for _, tc := range cases {
		code, stdout, stderr := runCLI(t, "", tc.args...)
		if code != tc.code || !strings.HasPrefix(stdout, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d, stdout starting %q", tc.args, code, stdout, stderr, tc.code, tc.want)
		}
	}
}

// TestReplayJob replays a job's stored plan on a real server and compares
// it with the local replay of the same level.
func TestReplayJob(t *testing.T) {
	t.Parallel()
	url, _ := startStack(t)
	c := client.New(url)
	level := `{"kind":"zuma","board":"RRWWRRBBRR","hand":"WB"}`
	j, err := c.CreateJob(t.Context(), []byte(level), jobtype.Options{})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for j.State != "done" && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		if j, err = c.GetJob(t.Context(), j.ID); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr := runCLI(t, "", "--server", url, "replay", "--job", "1", "--step", "2")
	if code != exitOK || stdout != "zuma 2\nboard -\nhand -\n" {
		t.Fatalf("replay --job: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	file := filepath.Join(t.TempDir(), "level.json")
	if err := os.WriteFile(file, []byte(level), 0o644); err != nil {
		t.Fatal(err)
	}
	_, server, _ := runCLI(t, "", "--server", url, "replay", "--job", "1")
	_, local, _ := runCLI(t, "", "replay", file)
	if server != local {
		t.Errorf("server replay\n%s\nlocal replay\n%s", server, local)
	}
	if code, _, stderr := runCLI(t, "", "--server", url, "replay", "--job", "99"); code != exitError || !strings.Contains(stderr, "99") {
		t.Errorf("unknown job: exit %d, %q", code, stderr)
	}
}
