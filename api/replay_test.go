package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/puzzled/puzzled/api"
	"github.com/puzzled/puzzled/api/client"
	"github.com/puzzled/puzzled/jobtype"
)

// TestReplayRoute: GET /v1/jobs/{id}/replay lists a solved job's states
// (the canonical text of each, from the simulator); 409 before a result,
// 404 for an unknown job. The workbench pages are served beside the API.
func TestReplayRoute(t *testing.T) {
	t.Parallel()
	f := setup(t, api.Config{}, false)
	c := client.New(f.url)

	queued, err := c.CreateJob(t.Context(), json.RawMessage(`{"kind":"zuma","board":"RRWWRRBBRR","hand":"WB"}`), jobtype.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if code, body := request(t, "GET", fmt.Sprintf("%s/v1/jobs/%d/replay", f.url, queued.ID), "", ""); code != 409 {
		t.Fatalf("queued job: %d %s", code, body)
	}
	if code, _ := request(t, "GET", f.url+"/v1/jobs/9999/replay", "", ""); code != 404 {
		t.Fatalf("unknown job: %d", code)
	}

	w := setup(t, api.Config{Metrics: prometheus.NewRegistry()}, true)
	wc := client.New(w.url)
	j, err := wc.CreateJob(t.Context(), json.RawMessage(`{"kind":"twoends","values":[3,1,2]}`), jobtype.Options{})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for j.State != "done" {
		if time.Now().After(deadline) {
			t.Fatalf("job not done: %+v", j)
		}
		time.Sleep(20 * time.Millisecond)
		if j, err = wc.GetJob(t.Context(), j.ID); err != nil {
			t.Fatal(err)
		}
	}
	rp, err := wc.GetReplay(t.Context(), j.ID)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, st := range rp.States {
		texts = append(texts, st.Text)
	}
	want := []string{
		"twoends 0\nrow 3 1 2\nfirst 0\nsecond 0\nturn first",
		"twoends 1\nrow 1 2\nfirst 3\nsecond 0\nturn second",
		"twoends 2\nrow 1\nfirst 3\nsecond 2\nturn first",
		"twoends 3\nrow -\nfirst 4\nsecond 2\nturn -",
	}
	if strings.Join(texts, "|") != strings.Join(want, "|") || rp.Verdict != "solved" || rp.Kind != "twoends" {
		t.Fatalf("replay = %+v", rp)
	}

	vals := make([]string, 2001)
	for i := range vals {
		vals[i] = fmt.Sprint(i % 7)
	}
	long, err := wc.CreateJob(t.Context(), json.RawMessage(`{"kind":"twoends","values":[`+strings.Join(vals, ",")+`]}`), jobtype.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for long.State != "done" {
		if time.Now().After(deadline) {
			t.Fatalf("job not done: %+v", long)
		}
		time.Sleep(20 * time.Millisecond)
		if long, err = wc.GetJob(t.Context(), long.ID); err != nil {
			t.Fatal(err)
		}
	}
	if code, body := request(t, "GET", fmt.Sprintf("%s/v1/jobs/%d/replay", w.url, long.ID), "", ""); code != 413 {
		t.Fatalf("twoends of 2,001 values: %d %s", code, body)
	}

	for path, want := range map[string]int{"/": 302, "/ui/": 200, "/ui/jobs/1": 200, "/ui/assets/app.js": 200, "/ui/jobs/x": 404, "/nope": 404} {
		req, _ := requestNoRedirect(t, w.url+path)
		if req != want {
			t.Errorf("GET %s: %d, want %d", path, req, want)
		}
	}
}

// requestNoRedirect GETs url without following redirects.
func requestNoRedirect(t *testing.T, url string) (int, string) {
	t.Helper()
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := hc.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Location")
}
