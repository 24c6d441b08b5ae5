package api_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/puzzled/puzzled/api"
	"github.com/puzzled/puzzled/api/client"
	"github.com/puzzled/puzzled/api/wire"
	"github.com/puzzled/puzzled/internal/waittest"
	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/difficulty"
	"github.com/puzzled/puzzled/solver/kinds"
)

// sheepTemplate is a small sheep layout: two piles of three tiles of
// two types over six loose tiles; deals of it are often unsolvable.
const sheepTemplate = `{"kind":"sheep","slots":4,"tiles":[
	{"id":"a1","type":1,"x":0,"y":0,"layer":3},{"id":"a2","type":2,"x":0,"y":0,"layer":2},{"id":"a3","type":3,"x":0,"y":0,"layer":1},
	{"id":"b1","type":1,"x":16,"y":0,"layer":3},{"id":"b2","type":2,"x":16,"y":0,"layer":2},{"id":"b3","type":3,"x":16,"y":0,"layer":1},
	{"id":"c1","type":1,"x":32,"y":0,"layer":1},{"id":"c2","type":2,"x":48,"y":0,"layer":1},{"id":"c3","type":3,"x":64,"y":0,"layer":1}]}`

// TestGenerateFillsABatchWithLevelsInTheBand drives POST /v1/generate
// through the client: the generation ends done, its batch holds as many
// solved levels as asked, each with a plan that replays and a score in
// the band, and tried = kept + rejected.
func TestGenerateFillsABatchWithLevelsInTheBand(t *testing.T) {
	t.Parallel()
	f := setup(t, api.Config{Metrics: prometheus.NewRegistry()}, true)
	c := client.New(f.url)
	g, err := c.Generate(t.Context(), wire.GenerateRequest{Template: json.RawMessage(sheepTemplate), Count: 3,
		Score: wire.ScoreBand{Min: 1, Max: 3}, Seed: 7, Difficulty: &jobtype.Difficulty{Playouts: 200}})
	if err != nil {
		t.Fatal(err)
	}
	if g.State != "running" || g.Mode != "generate" || g.Kind != "sheep" {
		t.Fatalf("new generation %+v", g)
	}
	waittest.WaitFor(t, 2*time.Minute, "the generation to end", func() bool {
		if g, err = c.GetGeneration(t.Context(), g.ID); err != nil {
			t.Fatal(err)
		}
		return g.State != "running"
	})
	rejected := 0
	for _, n := range g.Rejected {
		rejected += n
	}
	if g.State != "done" || g.Kept != 3 || g.Tried != g.Kept+rejected || g.FinishedAt == nil {
		t.Fatalf("generation %+v: want done, 3 kept, tried = kept + rejected", g)
	}
	reg := kinds.Registry()
	n := 0
	err = c.BatchResults(t.Context(), g.BatchID, func(r wire.BatchResult) error {
		n++
		sol, lvl := solutionAndLevel(t, c, r.JobID)
		res := sol.Result.Result
		if err := reg.KindOf(lvl).Verify(lvl, res); err != nil || sol.Verdict != solver.Solved {
			t.Errorf("job %d: %s, replay: %v", r.JobID, sol.Verdict, err)
		}
		var fig difficulty.Figures
		if err := json.Unmarshal(sol.Difficulty, &fig); err != nil || fig.Score == nil || *fig.Score < 1 || *fig.Score > 3 {
			t.Errorf("job %d: figures %s (%v): want a score in [1, 3]", r.JobID, sol.Difficulty, err)
		}
		return nil
	})
	if err != nil || n != 3 {
		t.Fatalf("batch results: %d levels, %v", n, err)
	}
	b, err := c.GetBatch(t.Context(), g.BatchID)
	if err != nil || b.Done != 1 {
		t.Fatalf("batch %+v %v: want done", b, err)
	}
}

func TestGenerateRefusesBadRequests(t *testing.T) {
	t.Parallel()
	f := setup(t, api.Config{}, false)
	c := client.New(f.url)
	for _, req := range []wire.GenerateRequest{
		{Template: json.RawMessage(sheepTemplate), Count: 0, Score: wire.ScoreBand{Min: 1, Max: 3}},
		{Template: json.RawMessage(sheepTemplate), Count: 2, Score: wire.ScoreBand{Min: 5, Max: 3}},
		{Template: json.RawMessage(`{"kind":"twoends","values":[1,2]}`), Count: 2, Score: wire.ScoreBand{Min: 1, Max: 3}},
		{Template: json.RawMessage(`{"kind":"sheep","tiles":[]}`), Count: 2, Score: wire.ScoreBand{Min: 1, Max: 3}},
	} {
		var e *client.Error
		if _, err := c.Generate(t.Context(), req); !errors.As(err, &e) || e.Status != 400 {
			t.Errorf("%s: %v, want 400", req.Template, err)
		}
	}
}

// TestRepairAnUnsolvableJob: POST /v1/jobs/{id}/repair on a level the
// solver proved unsolvable keeps the first swaps that fix it, each
// solved with a plan that replays; on a solved job it is refused.
func TestRepairAnUnsolvableJob(t *testing.T) {
	t.Parallel()
	f := setup(t, api.Config{Metrics: prometheus.NewRegistry()}, true)
	c := client.New(f.url)
	// Three piles of one type each, 3 slots: the tray fills with two
	// tiles of the top types; a swap that puts a triple on top wins.
	level := `{"kind":"sheep","slots":3,"tiles":[
		{"id":"a1","type":1,"x":0,"y":0,"layer":3},{"id":"a2","type":2,"x":0,"y":0,"layer":2},{"id":"a3","type":3,"x":0,"y":0,"layer":1},
		{"id":"b1","type":2,"x":16,"y":0,"layer":3},{"id":"b2","type":3,"x":16,"y":0,"layer":2},{"id":"b3","type":1,"x":16,"y":0,"layer":1},
		{"id":"c1","type":3,"x":32,"y":0,"layer":3},{"id":"c2","type":1,"x":32,"y":0,"layer":2},{"id":"c3","type":2,"x":32,"y":0,"layer":1}]}`
	job := solvedJob(t, c, level)
	if job.Result.Verdict != solver.Unsolvable {
		t.Fatalf("job %+v: want unsolvable", job.Result)
	}
	g, err := c.Repair(t.Context(), job.ID, wire.RepairRequest{Count: 2})
	if err != nil {
		t.Fatal(err)
	}
	waittest.WaitFor(t, 2*time.Minute, "the repair to end", func() bool {
		if g, err = c.GetGeneration(t.Context(), g.ID); err != nil {
			t.Fatal(err)
		}
		return g.State != "running"
	})
	if g.State != "done" || g.Kept != 2 || g.Mode != "repair" || g.JobID == nil || *g.JobID != job.ID {
		t.Fatalf("repair %+v: want done with 2 fixes", g)
	}
	reg := kinds.Registry()
	err = c.BatchResults(t.Context(), g.BatchID, func(r wire.BatchResult) error {
		sol, lvl := solutionAndLevel(t, c, r.JobID)
		if err := reg.KindOf(lvl).Verify(lvl, sol.Result.Result); err != nil || sol.Verdict != solver.Solved {
			t.Errorf("fix %d: %s, replay %v", r.JobID, sol.Verdict, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	solved := solvedJob(t, c, `{"kind":"twoends","values":[3,1,2]}`)
	var e *client.Error
	if _, err := c.Repair(t.Context(), solved.ID, wire.RepairRequest{}); !errors.As(err, &e) || e.Status != 409 {
		t.Fatalf("repair of a solved job: %v, want 409", err)
	}
}

// TestCancelAGeneration: a generation that cannot finish soon is canceled
// with its batch, and stays canceled.
func TestCancelAGeneration(t *testing.T) {
	t.Parallel()
	f := setup(t, api.Config{Metrics: prometheus.NewRegistry()}, true)
	c := client.New(f.url)
	// A band no deal reaches, and many candidates: it would run long.
	g, err := c.Generate(t.Context(), wire.GenerateRequest{Template: json.RawMessage(sheepTemplate), Count: 5,
		Score: wire.ScoreBand{Min: 10, Max: 10}, MaxCandidates: 100000, Difficulty: &jobtype.Difficulty{Playouts: 50}})
	if err != nil {
		t.Fatal(err)
	}
	waittest.WaitFor(t, time.Minute, "candidates to be tried", func() bool {
		g, err = c.GetGeneration(t.Context(), g.ID)
		return err == nil && g.Tried > 0
	})
	if g, err = c.CancelGeneration(t.Context(), g.ID); err != nil || g.State != "canceled" {
		t.Fatalf("cancel: %+v %v", g, err)
	}
	b, err := c.GetBatch(t.Context(), g.BatchID)
	if err != nil || b.CanceledAt == nil {
		t.Fatalf("batch %+v %v: want canceled", b, err)
	}
	tried := g.Tried
	waittest.WaitFor(t, time.Minute, "the task to stop", func() bool {
		g2, _ := c.GetGeneration(t.Context(), g.ID)
		if g2.Tried > tried+1 {
			t.Fatalf("a canceled generation went on: %d candidates, %d at cancel", g2.Tried, tried)
		}
		return g2.State == "canceled"
	})
}

// solvedJob submits a level and waits for its result.
func solvedJob(t *testing.T, c *client.Client, level string) wire.Job {
	t.Helper()
	j, err := c.CreateJob(t.Context(), json.RawMessage(level), jobtype.Options{})
	if err != nil {
		t.Fatal(err)
	}
	waittest.WaitFor(t, time.Minute, "the job to be done", func() bool {
		j, err = c.GetJob(t.Context(), j.ID)
		return err == nil && j.State == "done"
	})
	return j
}

// solutionAndLevel fetches a job's solution and parses its level.
func solutionAndLevel(t *testing.T, c *client.Client, jobID int64) (wire.Solution, solver.Level) {
	t.Helper()
	sol, err := c.GetSolution(t.Context(), jobID)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := c.GetLevel(t.Context(), sol.LevelHash)
	if err != nil {
		t.Fatal(err)
	}
	lvl, err := kinds.Registry().Parse(stored.Body)
	if err != nil {
		t.Fatal(err)
	}
	return sol, lvl
}
