package web_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/puzzled/puzzled/api"
	"github.com/puzzled/puzzled/api/client"
	"github.com/puzzled/puzzled/api/wire"
	"github.com/puzzled/puzzled/internal/e2etest"
	"github.com/puzzled/puzzled/jobtype"
)

// TestCrossSiteRequestsFromAnotherOrigin serves a page from a second HTTP
// server (another site: localhost, while the API is 127.0.0.1) that does
// what any web page can do without asking: fetch with mode "no-cors" to
// every POST route the API documents, with a body of no type and with
// text/plain, as a form would. With auth off and with auth on, every such
// request is refused with 403 (the metrics count them by route and
// status, none answered below 400), no job or batch appears and the live
// job and batch are not canceled. (The worker is stopped first, so that
// they stay queued whatever happens: a request that got through would
// cancel them.)
func TestCrossSiteRequestsFromAnotherOrigin(t *testing.T) {
	routes := postRoutes(t)
	for _, auth := range []bool{false, true} {
		t.Run("auth "+strconv.FormatBool(auth), func(t *testing.T) {
			var env []string
			token := ""
			if auth {
				token = "s3cret-token"
				env = append(env, "PUZZLED_API_TOKENS=ci:"+token)
			}
			s := e2etest.StartStack(t, env...)
			c := client.New(s.URL)
			c.Token = token
			s.Work.Stop(time.Minute)
			job, batch := liveJobAndBatch(t, c)
			jobsBefore := countJobs(t, c)
			before := refusals(t, s.URL)

			var paths []string
			for _, r := range routes {
				paths = append(paths, strings.ReplaceAll(r, "{id}", strconv.FormatInt(map[bool]int64{true: batch, false: job.ID}[strings.Contains(r, "batches/{id}")], 10)))
			}
			evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				fmt.Fprint(w, evilPage(s.URL, paths))
			}))
			t.Cleanup(evil.Close)
			b := newBrowser(t, s.URL)
			evilURL := strings.Replace(evil.URL, "127.0.0.1", "localhost", 1)
			tb := b.open(t, "evil", evilURL+"/")
			tb.run(t, chromedp.Poll(`document.title === 'done'`, nil, polling...))
			var sent int
			tb.run(t, chromedp.Evaluate(`window.sent`, &sent))
			if sent != 2*len(paths) {
				t.Fatalf("the page sent %d requests, want %d", sent, 2*len(paths))
			}

			after := refusals(t, s.URL)
			for _, r := range routes {
				route := "POST " + r
				if got := after[route+" 403"] - before[route+" 403"]; got != 2 {
					t.Errorf("%s: %d requests refused with 403, want 2 (metrics %v)", route, got, after)
				}
				for k, n := range after {
					if strings.HasPrefix(k, route+" ") && !strings.HasSuffix(k, " 403") && n != before[k] {
						t.Errorf("%s answered %s to the cross-site page", route, k)
					}
				}
			}
			if n := countJobs(t, c); n != jobsBefore {
				t.Errorf("jobs: %d before the page, %d after", jobsBefore, n)
			}
			if j, err := c.GetJob(t.Context(), job.ID); err != nil || j.State != jobtype.Queued {
				t.Errorf("the queued job is %s after the page (%v)", j.State, err)
			}
			if bt, err := c.GetBatch(t.Context(), batch); err != nil || bt.CanceledAt != nil {
				t.Errorf("the batch was canceled by the page (%v)", err)
			}
		})
	}
}

// postRoutes lists the POST routes openapi.json documents.
func postRoutes(t *testing.T) []string {
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(api.OpenAPIDocument(), &doc); err != nil {
		t.Fatal(err)
	}
	var out []string
	for p, ops := range doc.Paths {
		if _, ok := ops["post"]; ok {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	if len(out) < 6 {
		t.Fatalf("POST routes: %v", out)
	}
	return out
}

// evilPage posts to every path of the API, twice: a body of no type, and
// text/plain. It counts what it sent and sets its title when all settled.
func evilPage(apiURL string, paths []string) string {
	js, _ := json.Marshal(paths)
	return `<!doctype html><title>evil</title><script>
window.sent = 0;
const api = ` + strconv.Quote(apiURL) + `;
const level = '{"kind":"twoends","values":[4,2,9]}';
const send = (p, opts) => { window.sent++; return fetch(api + p, {method: 'POST', mode: 'no-cors', ...opts}).catch(() => {}); };
Promise.allSettled(` + string(js) + `.flatMap((p) => [
  send(p, {body: new Blob([level])}),
  send(p, {body: level, headers: {'Content-Type': 'text/plain'}}),
])).then(() => { document.title = 'done'; });
</script>`
}

// liveJobAndBatch submits a job and a one-level batch; with no worker
// they stay queued.
func liveJobAndBatch(t *testing.T, c *client.Client) (wire.Job, int64) {
	job, err := c.CreateJob(t.Context(), json.RawMessage(`{"kind":"twoends","values":[5,1,4]}`), jobtype.Options{})
	if err != nil {
		t.Fatal(err)
	}
	batch, err := c.CreateBatch(t.Context(), []json.RawMessage{json.RawMessage(`{"kind":"twoends","values":[7,1,4]}`)}, jobtype.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return job, batch
}

func countJobs(t *testing.T, c *client.Client) int {
	n := 0
	if err := c.ListJobs(t.Context(), client.Filter{}, func(wire.JobListItem) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

var metricLine = regexp.MustCompile(`^puzzled_http_request_duration_seconds_count\{route="([^"]+)",status="(\d+)"\} (\d+)$`)

// refusals reads the API's request counts by "route status".
func refusals(t *testing.T, base string) map[string]int {
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out := map[string]int{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if m := metricLine.FindStringSubmatch(sc.Text()); m != nil {
			n, _ := strconv.Atoi(m[3])
			out[m[1]+" "+m[2]] = n
		}
	}
	return out
}
