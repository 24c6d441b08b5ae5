package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/puzzled/puzzled/api/client"
	"github.com/puzzled/puzzled/api/wire"
	"github.com/puzzled/puzzled/internal/e2etest"
	"github.com/puzzled/puzzled/internal/waittest"
	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/solver/kinds"
)

// oneOfEachKind has a small level of every registered kind.
var oneOfEachKind = map[string]string{
	"twoends": `{"kind":"twoends","values":[3,1,2]}`,
	"zuma":    `{"kind":"zuma","board":"WWRRBBWW","hand":"WRBRW"}`,
	"sheep":   `{"kind":"sheep","slots":7,"tile_size":8,"tiles":[{"id":"a","type":1,"x":0,"y":0,"layer":1},{"id":"b","type":1,"x":8,"y":0,"layer":1},{"id":"c","type":1,"x":4,"y":0,"layer":2}]}`,
	"columns": `{"kind":"columns","width":3,"height":5,"rule":"lines","board":["...","...","...","...","RG."],"pieces":["RRB","GGB"],"goal":{"type":"score","score":3}}`,
}

func TestDevRunsEverythingAndKeepsData(t *testing.T) {
	t.Parallel()
	dir, err := os.MkdirTemp("", "puzzled-dev-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil { // postgres runs as another user
		t.Fatal(err)
	}
	start := func() (*e2etest.Proc, *client.Client) {
		p := e2etest.Start(t, nil, "dev", "--data-dir", dir, "--http-addr", "127.0.0.1:0")
		addr := p.WaitLog("api listening", 2*time.Minute)["addr"].(string)
		return p, client.New("http://" + addr)
	}
	dev, c := start()
	if names := kinds.Registry().Names(); len(names) != len(oneOfEachKind) {
		t.Fatalf("registered kinds %v; add a level of each to oneOfEachKind", names)
	}
	jobs := map[string]wire.Job{}
	for kind, lvl := range oneOfEachKind {
		j, err := c.CreateJob(t.Context(), json.RawMessage(lvl), jobtype.Options{})
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		jobs[kind] = j
	}
	for kind, j := range jobs {
		sol := e2etest.WaitSolution(t, c, j.ID)
		if sol.Verdict != "solved" || len(sol.Plan) == 0 {
			t.Fatalf("%s: %+v", kind, sol)
		}
	}

	dev.Signal(syscall.SIGINT)
	select {
	case <-dev.Done():
	case <-time.After(time.Minute):
		t.Fatal("puzzled dev did not stop within a minute of SIGINT")
	}
	if code := dev.ExitCode(); code != 0 {
		t.Fatalf("exit code %d:\n%s", code, dev.Output())
	}
	if procs := e2etest.ProcessesIn(dir); len(procs) > 0 {
		t.Fatalf("processes left running on %s: %v", dir, procs)
	}
	if _, err := os.Stat(filepath.Join(dir, "postgres", "postmaster.pid")); !os.IsNotExist(err) {
		t.Fatalf("stale postmaster.pid after a clean stop: %v", err)
	}

	dev, c = start()
	for kind, j := range jobs {
		got, err := c.GetJob(t.Context(), j.ID)
		if err != nil || got.State != jobtype.Done || got.Result == nil || got.LevelHash != j.LevelHash {
			t.Fatalf("%s after restart: %+v, %v", kind, got, err)
		}
		lr, err := c.GetLevel(t.Context(), j.LevelHash)
		if err != nil || lr.Result == nil || lr.Result.Verdict != "solved" {
			t.Fatalf("%s level after restart: %+v, %v", kind, lr, err)
		}
	}

	// kill -9 of dev, then its folder removed (as a test's cleanup does):
	// its servers must not outlive it (they die with their parent; Redis
	// although its final save fails).
	dev.Signal(syscall.SIGKILL)
	<-dev.Done()
	// Removed at once and again until it stays removed: a server still
	// dying may write a file (Redis its final save) while the folder goes.
	waittest.WaitFor(t, time.Minute, "no process left on "+dir+" after kill -9 of puzzled dev", func() bool {
		return os.RemoveAll(dir) == nil && len(e2etest.ProcessesIn(dir)) == 0
	})
}
