package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/puzzled/puzzled/api/client"
	"github.com/puzzled/puzzled/api/wire"
	"github.com/puzzled/puzzled/internal/e2etest"
	"github.com/puzzled/puzzled/internal/envtest"
	"github.com/puzzled/puzzled/internal/waittest"
	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/solver/twoends/twoendstest"
)

func TestMain(m *testing.M) {
	// A worker run inside this test binary starts its solve processes
	// from /proc/self/exe, that is this binary: serve them as puzzled would.
	if len(os.Args) > 1 && os.Args[1] == solveChildCommand {
		if err := runSolveChild(context.Background(), os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "solve-child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(envtest.Run(m))
}

func waitBatch(t *testing.T, c *client.Client, id int64, timeout time.Duration) wire.Batch {
	t.Helper()
	var b wire.Batch
	waittest.WaitFor(t, timeout, fmt.Sprintf("batch %d to finish", id), func() bool {
		var err error
		if b, err = c.GetBatch(t.Context(), id); err != nil {
			t.Fatal(err)
		}
		return b.Done == 1
	})
	return b
}

func TestEndToEndBatchOfTwoends(t *testing.T) {
	t.Parallel()
	s := e2etest.StartStack(t, "PUZZLED_MAX_JOB_BODY=4096")
	c := checkedClient(t, s.URL)
	ctx := t.Context()

	rng := rand.New(rand.NewPCG(1, 2))
	var values [][]int64
	for range 1000 {
		v := make([]int64, 1+rng.IntN(40))
		for i := range v {
			v[i] = rng.Int64N(101) - 50
		}
		values = append(values, v)
	}
	for range 50 { // duplicates of earlier levels, at random places after them
		at := 1 + rng.IntN(len(values))
		dup := values[rng.IntN(at)]
		values = append(values[:at], append([][]int64{dup}, values[at:]...)...)
	}
	levels := make([]json.RawMessage, len(values))
	firstSeen := map[string]int{}
	for i, v := range values {
		levels[i], _ = json.Marshal(map[string]any{"kind": "twoends", "values": v})
		if _, ok := firstSeen[string(levels[i])]; !ok {
			firstSeen[string(levels[i])] = i
		}
	}
	id, err := c.CreateBatch(ctx, levels, jobtype.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := waitBatch(t, c, id, 2*time.Minute)
	if b.Total != 1050 || b.States["done"] != 1050 || b.Verdicts["solved"] != 1050 {
		t.Fatalf("batch = %+v", b)
	}

	seq, cached := 0, 0
	hashes := map[string][]int64{}
	err = c.BatchResults(ctx, id, func(r wire.BatchResult) error {
		if int(r.Seq) != seq {
			return fmt.Errorf("line %d has seq %d", seq, r.Seq)
		}
		v := values[seq]
		res := r.Result
		if r.State != jobtype.Done || res == nil || res.Value == nil {
			return fmt.Errorf("seq %d: state %s result %+v", seq, r.State, res)
		}
		if want := twoendstest.DP(v); *res.Value != want || !res.Optimal {
			return fmt.Errorf("seq %d %v: value %d optimal %v, DP says %d", seq, v, *res.Value, res.Optimal, want)
		}
		var line string
		if err := json.Unmarshal(res.Plan, &line); err != nil {
			return fmt.Errorf("seq %d: plan %s: %w", seq, res.Plan, err)
		}
		if got, err := twoendstest.Replay(v, line); err != nil || got != *res.Value {
			return fmt.Errorf("seq %d: line %q replays to %d (%v), value %d", seq, line, got, err, *res.Value)
		}
		if wantCached := firstSeen[string(levels[seq])] != seq; r.Cached != wantCached {
			return fmt.Errorf("seq %d: cached %v, want %v", seq, r.Cached, wantCached)
		}
		if r.Cached {
			cached++
		}
		hashes[r.LevelHash] = v
		seq++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seq != len(values) || cached < 50 || b.Cached != cached {
		t.Fatalf("streamed %d lines, %d cached (batch says %d)", seq, cached, b.Cached)
	}
	n := 0
	for hash, v := range hashes {
		lr, err := c.GetLevel(ctx, hash)
		if err != nil || lr.Result == nil || *lr.Result.Value != twoendstest.DP(v) {
			t.Fatalf("GET /v1/levels/%s = %+v, %v", hash, lr, err)
		}
		if n++; n == 25 {
			break
		}
	}

	// A single interactive job, then the same level again: cached at once.
	job, err := c.CreateJob(ctx, json.RawMessage(`{"kind":"twoends","values":[3,1,2]}`), jobtype.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sol := e2etest.WaitSolution(t, c, job.ID)
	if *sol.Value != 2 || string(sol.Plan) != `"LRL"` {
		t.Fatalf("solution = %+v plan %s", sol, sol.Plan)
	}
	again, err := c.CreateJob(ctx, json.RawMessage(`{"kind":"twoends","values":[3,1,2]}`), jobtype.Options{})
	if err != nil || !again.Cached || again.State != jobtype.Done {
		t.Fatalf("resubmitted level: %+v, %v", again, err)
	}
	s.Work.Stop(20 * time.Second)
	s.Serve.Stop(20 * time.Second)
}

func TestEndToEndBadInput(t *testing.T) {
	t.Parallel()
	s := e2etest.StartStack(t, "PUZZLED_MAX_JOB_BODY=4096", "PUZZLED_MAX_BATCH_LEVELS=10")
	post := func(path, contentType, body string) (int, map[string]any) {
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, s.URL+path, strings.NewReader(body))
		req.Header.Set("Content-Type", contentType)
		resp, err := checkedHTTP(t).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
			t.Fatalf("%s: answer is not JSON: %v", path, err)
		}
		return resp.StatusCode, m
	}
	bigLevel := `{"kind":"twoends","values":[` + strings.Repeat("1,", 4000) + `1]}`
	tooMany := strings.Repeat(`{"kind":"twoends","values":[1]}`+"\n", 11)
	for _, c := range []struct {
		name, path, body string
		status           int
		field            string
	}{
		{"invalid JSON", "/v1/jobs", `{"kind":`, 400, ""},
		{"unknown kind", "/v1/jobs", `{"kind":"chess"}`, 400, "kind"},
		{"missing kind", "/v1/jobs", `{"level":{"values":[1]}}`, 400, "kind"},
		{"invalid level", "/v1/jobs", `{"kind":"twoends","values":[]}`, 400, "values"},
		{"bad priority", "/v1/jobs", `{"level":{"kind":"twoends","values":[1]},"priority":"urgent"}`, 400, "priority"},
		{"negative budget", "/v1/jobs", `{"level":{"kind":"twoends","values":[1]},"budget":{"max_ms":-1}}`, 400, "budget.max_ms"},
		{"unknown option", "/v1/jobs", `{"level":{"kind":"twoends","values":[1]},"colour":1}`, 400, "colour"},
		{"job body over limit", "/v1/jobs", bigLevel, 413, ""},
		{"empty batch", "/v1/batches", `[]`, 400, "levels"},
		{"batch not JSON", "/v1/batches", `[{"kind"`, 400, ""},
		{"batch over length limit", "/v1/batches", tooMany, 413, "levels"},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, body := post(c.path, "application/json", c.body)
			if status != c.status || body["error"] == nil || (c.field != "" && body["field"] != c.field) {
				t.Fatalf("status %d body %v; want %d with field %q", status, body, c.status, c.field)
			}
		})
	}
	t.Run("batch with bad levels is rejected whole", func(t *testing.T) {
		body := `{"kind":"twoends","values":[1]}` + "\n" + `{"kind":"twoends","values":"x"}` + "\n" +
			`{"kind":"twoends","values":[2]}` + "\n" + `{"kind":"zz"}`
		status, m := post("/v1/batches", "application/x-ndjson", body)
		errs, _ := m["errors"].([]any)
		if status != 400 || len(errs) != 2 {
			t.Fatalf("status %d body %v", status, m)
		}
		if e := errs[0].(map[string]any); e["index"] != 1.0 || e["field"] != "values" {
			t.Fatalf("first error %v", e)
		}
	})
	c := checkedClient(t, s.URL)
	for _, path := range []string{"/v1/jobs/999999", "/v1/jobs/abc", "/v1/batches/424242", "/v1/levels/" + strings.Repeat("ab", 32), "/v1/levels/xyz", "/v1/nothing"} {
		resp, err := checkedHTTP(t).Get(s.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 404 {
			t.Errorf("GET %s = %d, want 404", path, resp.StatusCode)
		}
	}
	if _, err := c.CancelJob(t.Context(), 31337); client.StatusOf(err) != 404 {
		t.Errorf("cancel unknown job: %v", err)
	}
	if _, err := c.CancelBatch(t.Context(), 31337); client.StatusOf(err) != 404 {
		t.Errorf("cancel unknown batch: %v", err)
	}
}
