package api_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/puzzled/puzzled/api"
	"github.com/puzzled/puzzled/jobtype"
)

// answer is an error body or an accepted job/batch.
type answer struct {
	ID     int64  `json:"id"`
	Error  string `json:"error"`
	Field  string `json:"field"`
	Errors []struct {
		Index  int    `json:"index"`
		Field  string `json:"field"`
		Reason string `json:"reason"`
	} `json:"errors"`
}

func post(t *testing.T, url, contentType, body string) (int, answer) {
	t.Helper()
	resp, err := http.Post(url, contentType, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var a answer
	data, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(data, &a); err != nil {
		t.Fatalf("POST %s: answer %d is not JSON: %q", url, resp.StatusCode, data)
	}
	return resp.StatusCode, a
}

// Issue 13 item 1: strings PostgreSQL cannot store are 400s naming the
// field, never 500s; labels have caps.
func TestTextAndLabelsAreCheckedAtTheEdge(t *testing.T) {
	t.Parallel()
	f := setup(t, api.Config{Limits: api.Limits{SubmitRate: 1000}}, false)
	job := func(labels string) string {
		return `{"level":{"kind":"twoends","values":[5,6,7]},"labels":` + labels + `}`
	}
	sheep := func(id string) string {
		return `{"kind":"sheep","tiles":[{"id":` + id + `,"type":1,"x":0,"y":0,"layer":0},` +
			`{"id":"b","type":1,"x":0,"y":0,"layer":1},{"id":"c","type":1,"x":0,"y":0,"layer":2}]}`
	}
	manyKeys := func(n, valueLen int) string {
		var kv []string
		for i := range n {
			kv = append(kv, fmt.Sprintf(`"k%d":"%s"`, i, strings.Repeat("v", valueLen)))
		}
		return "{" + strings.Join(kv, ",") + "}"
	}
	for _, c := range []struct {
		name, path, body string
		status           int
		field            string
	}{
		{"NUL in a label value", "/v1/jobs", job(`{"a":"\u0000"}`), 400, "labels.a"},
		{"lone high surrogate", "/v1/jobs", job(`{"a":"x\ud800"}`), 400, "labels.a"},
		{"lone low surrogate", "/v1/jobs", job(`{"a":"\udc00y"}`), 400, "labels.a"},
		{"invalid UTF-8 byte", "/v1/jobs", job("{\"a\":\"\xff\"}"), 400, "labels.a"},
		{"NUL nested in a value", "/v1/jobs", job(`{"a":{"b":["ok","\u0000"]}}`), 400, "labels.a.b[1]"},
		{"NUL in a key", "/v1/jobs", job(`{"a\u0000":"x"}`), 400, "labels"},
		{"too many keys", "/v1/jobs", job(manyKeys(jobtype.MaxLabelKeys+1, 1)), 400, "labels"},
		{"long value", "/v1/jobs", job(`{"a":"` + strings.Repeat("x", jobtype.MaxLabelValueLen) + `"}`), 400, "labels.a"},
		{"long key", "/v1/jobs", job(`{"` + strings.Repeat("k", jobtype.MaxLabelKeyLen+1) + `":1}`), 400, "labels"},
		{"labels too large in all", "/v1/jobs", job(manyKeys(40, 500)), 400, "labels"},
		{"labels not an object", "/v1/jobs", job(`[1]`), 400, "labels"},
		{"surrogate pair and unicode are fine", "/v1/jobs", job(`{"a":"\ud83d\udc11 ü 羊","n":3}`), 202, ""},
		{"labels at the caps are fine", "/v1/jobs", job(manyKeys(jobtype.MaxLabelKeys, 200)), 202, ""},
		{"batch envelope labels", "/v1/batches", `{"levels":[{"kind":"twoends","values":[1]}],"labels":{"a":"\ud800"}}`, 400, "labels.a"},
		{"sheep tile id with NUL in a job", "/v1/jobs", sheep(`"a\u0000"`), 400, "tiles[0].id"},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, a := post(t, f.url+c.path, "application/json", c.body)
			if status != c.status || a.Field != c.field {
				t.Fatalf("%d %+v, want %d naming %q", status, a, c.status, c.field)
			}
		})
	}
	t.Run("sheep tile id with NUL in a batch names its index", func(t *testing.T) {
		body := sheep(`"a"`) + "\n" + sheep(`"a\u0000"`) + "\n" + sheep(`"z\ud800"`) + "\n"
		status, a := post(t, f.url+"/v1/batches", "application/x-ndjson", body)
		if status != 400 || len(a.Errors) != 2 || a.Errors[0].Index != 1 || a.Errors[0].Field != "tiles[0].id" || a.Errors[1].Index != 2 {
			t.Fatalf("%d %+v, want 400 listing levels 1 and 2", status, a)
		}
	})
	t.Run("stored labels come back unchanged", func(t *testing.T) {
		status, a := post(t, f.url+"/v1/jobs", "application/json", job(`{"who":"\u00fc\ud83d\udc11"}`))
		if status != 202 {
			t.Fatalf("%d %+v", status, a)
		}
		_, body := request(t, "GET", fmt.Sprintf("%s/v1/jobs/%d", f.url, a.ID), "", "")
		if !strings.Contains(body, "ü🐑") {
			t.Fatalf("labels lost: %s", body)
		}
	})
}

// Issue 13 item 6.
func TestTwoendsNullIsRejected(t *testing.T) {
	t.Parallel()
	f := setup(t, api.Config{}, false)
	status, a := post(t, f.url+"/v1/jobs", "application/json", `{"kind":"twoends","values":[null,2]}`)
	if status != 400 || a.Field != "values[0]" || !strings.Contains(a.Error, "null") {
		t.Fatalf("%d %+v, want 400 naming values[0]", status, a)
	}
	status, a = post(t, f.url+"/v1/batches", "application/json", `[{"kind":"twoends","values":[1]},{"kind":"twoends","values":[1,null]}]`)
	if status != 400 || len(a.Errors) != 1 || a.Errors[0].Index != 1 || a.Errors[0].Field != "values[1]" {
		t.Fatalf("batch: %d %+v", status, a)
	}
}

// Issue 13 item 7: a token may contain ':'.
func TestTokensWithColons(t *testing.T) {
	t.Parallel()
	tokens, err := api.ParseTokens("ci:abc:def, :bare:colon ,plain", false)
	if err != nil {
		t.Fatal(err)
	}
	if len(tokens) != 3 || tokens[0].Name != "ci" || tokens[0].Token != "abc:def" ||
		tokens[1].Token != "bare:colon" || tokens[2].Token != "plain" || tokens[2].Name != "env-3" {
		t.Fatalf("parsed %+v", tokens)
	}
	if _, err := api.ParseTokens("ci:", false); err == nil {
		t.Fatal(`"ci:" (empty token) was accepted`)
	}
	f := setup(t, api.Config{Tokens: tokens}, false)
	for token, want := range map[string]int{"abc:def": 202, "bare:colon": 202, "plain": 202, "def": 401, "colon": 401, "ci": 401} {
		if got, body := request(t, "POST", f.url+"/v1/jobs", token, level); got != want {
			t.Errorf("token %q: %d %s, want %d", token, got, body, want)
		}
	}
}

// Issue 13 item 9: the smaller edges.
func TestSmallerEdges(t *testing.T) {
	t.Parallel()
	f := setup(t, api.Config{Limits: api.Limits{SubmitRate: 1000}}, false)
	t.Run("wrong method is 405 with Allow", func(t *testing.T) {
		for _, c := range []struct{ method, path, allow string }{
			{"PUT", "/v1/jobs", "GET, HEAD, POST"}, // GET /v1/jobs lists jobs
			{"GET", "/v1/jobs/1/cancel", "POST"},
			{"DELETE", "/v1/jobs/1", "GET, HEAD"},
			{"GET", "/v1/batches/1/cancel", "POST"},
			{"POST", "/v1/stats", "GET, HEAD"},
			{"GET", "/v1/projects/default", "PATCH"},
		} {
			req, _ := http.NewRequest(c.method, f.url+c.path, nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 405 || resp.Header.Get("Allow") != c.allow {
				t.Errorf("%s %s = %d Allow %q, want 405 Allow %q", c.method, c.path, resp.StatusCode, resp.Header.Get("Allow"), c.allow)
			}
		}
		if code, _ := request(t, "GET", f.url+"/v1/nothing", "", ""); code != 404 {
			t.Errorf("unknown path = %d, want 404", code)
		}
	})
	t.Run("ids are written plainly", func(t *testing.T) {
		status, a := post(t, f.url+"/v1/jobs", "application/json", level)
		if status != 202 {
			t.Fatalf("%d %+v", status, a)
		}
		for _, id := range []string{"+" + fmt.Sprint(a.ID), "0" + fmt.Sprint(a.ID), " " + fmt.Sprint(a.ID)} {
			for _, path := range []string{"/v1/jobs/%s", "/v1/jobs/%s/solution", "/v1/batches/%s"} {
				if code, _ := request(t, "GET", f.url+fmt.Sprintf(path, strings.ReplaceAll(id, " ", "%20")), "", ""); code != 404 {
					t.Errorf("GET %s = %d, want 404", fmt.Sprintf(path, id), code)
				}
			}
		}
		if code, _ := request(t, "GET", fmt.Sprintf("%s/v1/jobs/%d", f.url, a.ID), "", ""); code != 200 {
			t.Errorf("the plain id = %d, want 200", code)
		}
	})
	t.Run("messages", func(t *testing.T) {
		status, a := post(t, f.url+"/v1/jobs", "application/json", `{"level":{"kind":"twoends","values":[1]},"budget":{"max_ms":1.5}}`)
		if status != 400 || a.Field != "budget.max_ms" || !strings.Contains(a.Error, "an integer") || !strings.Contains(a.Error, "got 1.5") {
			t.Errorf("max_ms 1.5: %d %+v", status, a)
		}
		status, a = post(t, f.url+"/v1/jobs", "application/json", `{"values":[1,2]}`)
		if status != 400 || a.Field != "kind" || !strings.Contains(a.Error, `"kind"`) {
			t.Errorf("level without kind: %d %+v", status, a)
		}
		slow := setup(t, api.Config{Limits: api.Limits{SubmitRate: 0.01}}, false) // a token every 100 s: none comes back during the test, however slow
		codes := ""
		for range 4 {
			code, body := request(t, "POST", slow.url+"/v1/jobs", "", level)
			codes += fmt.Sprint(code, " ")
			if code == 429 {
				if strings.Contains(body, "per token") || !strings.Contains(body, "per client address") {
					t.Errorf("429 without auth: %s", body)
				}
				return
			}
		}
		t.Errorf("no 429 in %s", codes)
	})
}

func TestCanceledJobSolutionSaysCanceled(t *testing.T) {
	t.Parallel()
	f := setup(t, api.Config{}, false) // no worker: the job stays queued
	status, a := post(t, f.url+"/v1/jobs", "application/json", `{"kind":"twoends","values":[9,1,8,2]}`)
	if status != 202 {
		t.Fatalf("%d %+v", status, a)
	}
	if code, body := request(t, "POST", fmt.Sprintf("%s/v1/jobs/%d/cancel", f.url, a.ID), "", ""); code != 200 {
		t.Fatalf("cancel: %d %s", code, body)
	}
	code, body := request(t, "GET", fmt.Sprintf("%s/v1/jobs/%d/solution", f.url, a.ID), "", "")
	if code != 409 || !strings.Contains(body, "canceled") || strings.Contains(body, "yet") {
		t.Fatalf("solution of a canceled job: %d %s", code, body)
	}
}
