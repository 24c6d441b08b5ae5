package api_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/puzzled/puzzled/api"
	"github.com/puzzled/puzzled/api/wire"
	"github.com/puzzled/puzzled/solver/difficulty"
	"github.com/puzzled/puzzled/store"
)

// TestJobShowsDifficulty: GET /v1/jobs/{id} of a solved zuma level carries
// the difficulty figures next to the verdict.
func TestJobShowsDifficulty(t *testing.T) {
	t.Parallel()
	f := setup(t, api.Config{Metrics: prometheus.NewRegistry()}, true)
	code, body := request(t, "POST", f.url+"/v1/jobs", "", `{"kind":"zuma","board":"WWRRBBWW","hand":"WRBRW"}`)
	var job struct {
		ID     int64  `json:"id"`
		State  string `json:"state"`
		Result *struct {
			Verdict    string `json:"verdict"`
			Difficulty *struct {
				Playouts int `json:"playouts"`
				Random   *struct {
					Games int `json:"games"`
				} `json:"random"`
				Score *int `json:"score"`
			} `json:"difficulty"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(body), &job); code != 202 || err != nil {
		t.Fatalf("create: %d %v %s", code, err, body)
	}
	deadline := time.Now().Add(time.Minute)
	for job.State != "done" {
		if time.Now().After(deadline) {
			t.Fatalf("job not done: %s", body)
		}
		time.Sleep(50 * time.Millisecond)
		code, body = request(t, "GET", fmt.Sprintf("%s/v1/jobs/%d", f.url, job.ID), "", "")
		if err := json.Unmarshal([]byte(body), &job); code != 200 || err != nil {
			t.Fatalf("get: %d %v %s", code, err, body)
		}
	}
	d := job.Result.Difficulty
	if job.Result.Verdict != "solved" || d == nil || d.Playouts != 1000 || d.Random.Games != 1000 || d.Score == nil {
		t.Fatalf("job: %s", body)
	}
}

// TestDifficultyOptionRejected: the "difficulty" option of a job or batch
// is checked before anything is stored, with the field named.
func TestDifficultyOptionRejected(t *testing.T) {
	t.Parallel()
	f := setup(t, api.Config{}, false)
	const lvl = `{"kind":"zuma","board":"RRWWBB","hand":"RWB"}`
	for _, tc := range []struct {
		name, path, body, field string
	}{
		{"negative", "/v1/jobs", `{"level":` + lvl + `,"difficulty":{"playouts":-1}}`, "difficulty.playouts"},
		{"over the cap", "/v1/jobs", `{"level":` + lvl + `,"difficulty":{"playouts":100001}}`, "difficulty.playouts"},
		{"playouts missing", "/v1/jobs", `{"level":` + lvl + `,"difficulty":{}}`, "difficulty.playouts"},
		{"unknown field", "/v1/jobs", `{"level":` + lvl + `,"difficulty":{"playouts":5,"seed":1}}`, "difficulty.seed"},
		{"not an object", "/v1/jobs", `{"level":` + lvl + `,"difficulty":false}`, "difficulty"},
		{"not an integer", "/v1/jobs", `{"level":` + lvl + `,"difficulty":{"playouts":1.5}}`, "difficulty.playouts"},
		{"batch negative", "/v1/batches", `{"levels":[` + lvl + `],"difficulty":{"playouts":-5}}`, "difficulty.playouts"},
		{"batch over the cap, after the levels", "/v1/batches", `{"levels":[` + lvl + `],"difficulty":{"playouts":1000000}}`, "difficulty.playouts"},
		{"batch query negative", "/v1/batches?playouts=-1", `[` + lvl + `]`, "difficulty.playouts"},
		{"batch query over the cap", "/v1/batches?playouts=99999999999", `[` + lvl + `]`, "difficulty.playouts"},
		{"batch query not a number", "/v1/batches?playouts=many", `[` + lvl + `]`, "playouts"},
		{"batch query with the object form", "/v1/batches?playouts=5", `{"levels":[` + lvl + `]}`, "playouts"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := request(t, "POST", f.url+tc.path, "", tc.body)
			var e struct {
				Field string `json:"field"`
			}
			if err := json.Unmarshal([]byte(body), &e); code != 400 || err != nil || e.Field != tc.field {
				t.Fatalf("got %d %s, want 400 naming %q", code, body, tc.field)
			}
		})
	}
	n := 0
	if err := f.store.ListJobs(t.Context(), store.JobFilter{}, func(store.JobListItem) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("%d jobs stored from rejected requests", n)
	}
}

// TestDifficultyOption drives the option end to end through the API and a
// real worker: the playouts a job or batch asks for are the playouts of
// its figures, 0 means none, bulk jobs get none unless they ask, and a
// result stored without figures because its job asked for none does not
// serve a later job that wants them.
func TestDifficultyOption(t *testing.T) {
	t.Parallel()
	f := setup(t, api.Config{Metrics: prometheus.NewRegistry()}, true)
	const (
		levelA = `{"kind":"zuma","board":"WWRRBBWW","hand":"WRBRW"}`
		levelB = `{"kind":"zuma","board":"RRWWBB","hand":"RWB"}`
		levelC = `{"kind":"zuma","board":"BBRRWWRR","hand":"BRWR"}`
		levelD = `{"kind":"zuma","board":"WWBBRRYY","hand":"WBRY"}`
		levelE = `{"kind":"zuma","board":"RWWRBB","hand":"WRB"}`
	)
	// option is the job's "difficulty" as shown; -1 for absent.
	// playouts is the figures' playouts; -1 for no figures.
	type want struct{ option, playouts int }
	check := func(t *testing.T, j wire.Job, w want) {
		t.Helper()
		got := want{-1, -1}
		if j.Difficulty != nil {
			got.option = j.Difficulty.Playouts
		}
		if j.Result == nil || j.Result.Verdict != "solved" {
			t.Fatalf("job %d: no solved result: %+v", j.ID, j.Result)
		}
		if len(j.Result.Difficulty) > 0 {
			var fig difficulty.Figures
			if err := json.Unmarshal(j.Result.Difficulty, &fig); err != nil {
				t.Fatal(err)
			}
			if fig.Random == nil || fig.Random.Games != fig.Playouts {
				t.Fatalf("job %d: figures %s", j.ID, j.Result.Difficulty)
			}
			got.playouts = fig.Playouts
		}
		if got != w {
			t.Fatalf("job %d (%s, cached %v): option %d, figures' playouts %d; want %d, %d",
				j.ID, j.Priority, j.Cached, got.option, got.playouts, w.option, w.playouts)
		}
	}
	job := func(t *testing.T, body string) wire.Job {
		t.Helper()
		code, resp := request(t, "POST", f.url+"/v1/jobs", "", body)
		var j wire.Job
		if err := json.Unmarshal([]byte(resp), &j); code != 202 || err != nil {
			t.Fatalf("create: %d %v %s", code, err, resp)
		}
		return waitJob(t, f, j.ID)
	}
	batch := func(t *testing.T, path, body string) wire.Job {
		t.Helper()
		code, resp := request(t, "POST", f.url+path, "", body)
		var b struct {
			ID int64 `json:"id"`
		}
		if err := json.Unmarshal([]byte(resp), &b); code != 202 || err != nil {
			t.Fatalf("create batch: %d %v %s", code, err, resp)
		}
		code, resp = request(t, "GET", fmt.Sprintf("%s/v1/jobs?batch=%d", f.url, b.ID), "", "")
		var page struct {
			Items []struct {
				ID int64 `json:"id"`
			} `json:"items"`
		}
		if err := json.Unmarshal([]byte(resp), &page); code != 200 || err != nil || len(page.Items) != 1 {
			t.Fatalf("batch jobs: %d %v %s", code, err, resp)
		}
		return waitJob(t, f, page.Items[0].ID)
	}
	// The steps run in order: the fourth relies on the third.
	steps := []struct {
		name string
		run  func(t *testing.T) wire.Job
		want want
	}{
		{"interactive job asking for 300", func(t *testing.T) wire.Job {
			return job(t, `{"level":`+levelA+`,"difficulty":{"playouts":300}}`)
		}, want{300, 300}},
		{"interactive job asking for none", func(t *testing.T) wire.Job {
			return job(t, `{"level":`+levelB+`,"difficulty":{"playouts":0}}`)
		}, want{0, -1}},
		{"bulk batch without the option gets none", func(t *testing.T) wire.Job {
			return batch(t, "/v1/batches", `{"levels":[`+levelC+`]}`)
		}, want{0, -1}},
		{"interactive job of that level is solved again and rated", func(t *testing.T) wire.Job {
			j := job(t, levelC)
			if j.Cached {
				t.Fatal("served from the cached result without figures")
			}
			return j
		}, want{-1, 1000}},
		{"bulk job of a rated level is cached with its figures", func(t *testing.T) wire.Job {
			j := job(t, `{"level":`+levelA+`,"priority":"bulk"}`)
			if !j.Cached {
				t.Fatal("not cached")
			}
			return j
		}, want{0, 300}},
		{"bulk batch asking for 200", func(t *testing.T) wire.Job {
			return batch(t, "/v1/batches", `{"levels":[`+levelD+`],"difficulty":{"playouts":200}}`)
		}, want{200, 200}},
		{"array batch asking for 150 in the query", func(t *testing.T) wire.Job {
			return batch(t, "/v1/batches?playouts=150", "["+levelE+"]")
		}, want{150, 150}},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) { check(t, s.run(t), s.want) })
	}
}

// waitJob polls a job until it is final.
func waitJob(t *testing.T, f *fixture, id int64) wire.Job {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		code, body := request(t, "GET", fmt.Sprintf("%s/v1/jobs/%d", f.url, id), "", "")
		var j wire.Job
		if err := json.Unmarshal([]byte(body), &j); code != 200 || err != nil {
			t.Fatalf("get job %d: %d %v %s", id, code, err, body)
		}
		if j.State.Final() {
			return j
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %d not final: %s", id, body)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
