package api_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/puzzled/puzzled/api"
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
