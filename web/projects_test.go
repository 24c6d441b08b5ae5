package web_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/puzzled/puzzled/internal/e2etest"
)

// TestWorkbenchKeepsProjectsApart repeats the essentials of the API's
// project scopes (api TestProjectScopes) in the browser (issue 31): with
// beta's token the jobs page lists beta's job and not alpha's, alpha's job
// page answers "not found" and shows none of it; with alpha's token the
// same pages show alpha's job.
func TestWorkbenchKeepsProjectsApart(t *testing.T) {
	const op = "op-s3cret"
	s := e2etest.StartStack(t, "PUZZLED_API_TOKENS=op:"+op)
	call := func(token, method, path, body string, v any) {
		t.Helper()
		req, _ := http.NewRequest(method, s.URL+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		if resp.StatusCode/100 != 2 {
			t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, data)
		}
		if err := json.Unmarshal(data, v); err != nil {
			t.Fatalf("%s %s: %v (%s)", method, path, err, data)
		}
	}
	tokens := map[string]string{}
	jobs := map[string]int64{}
	for i, p := range []string{"alpha", "beta"} {
		call(op, "POST", "/v1/projects", `{"name":"`+p+`"}`, &struct{}{})
		var tok struct{ Token string }
		call(op, "POST", "/v1/tokens", `{"name":"`+p+`-submit","projects":[{"project":"`+p+`","role":"submit"}]}`, &tok)
		tokens[p] = tok.Token
		var job struct{ ID int64 }
		call(tok.Token, "POST", "/v1/jobs", fmt.Sprintf(`{"level":{"kind":"twoends","values":[%d,8,1]},"labels":{"owner":"marker-%s"}}`, i+2, p), &job)
		jobs[p] = job.ID
	}

	b := newBrowser(t, s.URL)
	tb := b.open(t, "projects", "/ui/jobs")
	as := func(project, path string) {
		t.Helper()
		tb.run(t, chromedp.Evaluate(fmt.Sprintf(`sessionStorage.setItem('puzzled-token', %q)`, tokens[project]), nil),
			chromedp.Navigate(s.URL+path))
	}
	page := func() string {
		t.Helper()
		var text string
		tb.run(t, chromedp.Evaluate(`document.body.innerText`, &text))
		return text
	}

	as("beta", "/ui/jobs")
	tb.run(t, shown(fmt.Sprintf(`#jobs tbody tr[data-job="%d"]`, jobs["beta"])))
	if n := tb.count(t, `#jobs tbody tr[data-job]`); n != 1 {
		t.Errorf("beta's jobs page lists %d jobs, want beta's one", n)
	}
	if text := page(); strings.Contains(text, "marker-alpha") {
		t.Errorf("beta's jobs page shows alpha's label:\n%s", text)
	}

	as("beta", "/ui/jobs/"+strconv.FormatInt(jobs["alpha"], 10))
	tb.run(t, shown(".error"))
	if got := tb.text(t, ".error"); !strings.Contains(strings.ToLower(got), "not found") {
		t.Errorf("alpha's job page with beta's token says %q, want not found", got)
	}
	if text := page(); strings.Contains(text, "marker-alpha") {
		t.Errorf("alpha's job page with beta's token shows its label:\n%s", text)
	}

	as("alpha", "/ui/jobs")
	tb.run(t, shown(fmt.Sprintf(`#jobs tbody tr[data-job="%d"]`, jobs["alpha"])))
	if text := page(); strings.Contains(text, "marker-beta") {
		t.Errorf("alpha's jobs page shows beta's label:\n%s", text)
	}
	as("alpha", "/ui/jobs/"+strconv.FormatInt(jobs["alpha"], 10))
	tb.run(t, chromedp.Poll(`document.body.innerText.includes('marker-alpha')`, nil, polling...))
}
