package web_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/puzzled/puzzled/api/client"
	"github.com/puzzled/puzzled/api/wire"
	"github.com/puzzled/puzzled/internal/envtest"
	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/difficulty"
	"github.com/puzzled/puzzled/solver/kinds"
)

func TestMain(m *testing.M) { os.Exit(envtest.Run(m)) }

// pasted is what the submit test pastes: one level of each kind but sheep
// (which comes as a dropped community file), and an unsolvable zuma.
var pasted = strings.Join([]string{
	`{"kind":"zuma","board":"WWRRBBWW","hand":"WRBRW"}`,
	`{"kind":"zuma","board":"WRRBBW","hand":"RB"}`,
	`{"kind":"twoends","values":[3,9,1,2,7,4,8]}`,
	`{"kind":"columns","width":4,"height":6,"rule":"lines","board":["....","....","....","....","....","AB.C"],"pieces":["AAB","BBC","CCA"],"goal":{"type":"survive"}}`,
}, "\n")

// TestWorkbench drives the pages in headless chromium against a real
// `puzzled dev`: submit a batch from the page and see it finish and its
// report; step through whole replays of a zuma and a sheep level checking
// data-state against the simulator at every step; open a columns and a
// twoends level at ?step=K; every level page shows the difficulty figures
// the API has for the job. No page may log an error.
func TestWorkbench(t *testing.T) {
	base, c := startDev(t)
	b := newBrowser(t, base)

	batchID := submitBatch(t, b)
	jobs := map[string]int64{}
	err := c.BatchResults(t.Context(), batchID, func(r wire.BatchResult) error {
		if r.Result != nil && r.Result.Verdict == solver.Solved {
			jobs[r.Kind] = r.JobID
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"zuma", "sheep", "columns", "twoends"} {
		if jobs[k] == 0 {
			t.Fatalf("batch %d has no solved %s level: %v", batchID, k, jobs)
		}
	}

	t.Run("batches", func(t *testing.T) { batchesList(t, b, batchID) })
	t.Run("zuma replay", func(t *testing.T) { stepThrough(t, b, c, jobs["zuma"], "job-zuma.png") })
	t.Run("sheep replay", func(t *testing.T) { stepThrough(t, b, c, jobs["sheep"], "job-sheep.png") })
	t.Run("columns at step", func(t *testing.T) { atStep(t, b, c, jobs["columns"], 2, "job-columns.png") })
	t.Run("twoends at step", func(t *testing.T) { atStep(t, b, c, jobs["twoends"], 3, "job-twoends.png") })
}

// submitBatch pastes levels, drops the community sheep file, sets options,
// submits, and follows the batch until its report shows.
func submitBatch(t *testing.T, b *browser) int64 {
	tb := b.open(t, "submit", "/ui/submit")
	sheepFile, err := filepath.Abs("../solver/sheep/testdata/community_level.json")
	if err != nil {
		t.Fatal(err)
	}
	tb.run(t,
		shown("#levels"),
		chromedp.SetValue("#levels", pasted, chromedp.ByID),
		chromedp.SetUploadFiles("#files", []string{sheepFile}, chromedp.ByID),
		shown("#file-list li"),
		chromedp.SetValue("#labels", "suite=browser, season=3", chromedp.ByID),
		chromedp.SetValue("#max-ms", "20000", chromedp.ByID),
		chromedp.SetValue("#playouts", strconv.Itoa(browserPlayouts), chromedp.ByID),
	)
	tb.shot(t, "submit.png")
	tb.run(t, chromedp.Click("#submit", chromedp.ByID))
	var url string
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(url, "/ui/batches/") && time.Now().Before(deadline) {
		tb.run(t, chromedp.Location(&url))
		time.Sleep(100 * time.Millisecond)
	}
	id, err := strconv.ParseInt(url[strings.LastIndex(url, "/")+1:], 10, 64)
	if err != nil {
		t.Fatalf("after submit the page is %s, not a batch: %s", url, tb.text(t, "#main"))
	}
	tb.run(t, shown(`#batch-summary[data-done="true"]`),
		shown(`section[data-ready="true"]`))
	page := tb.text(t, "#main")
	for _, want := range []string{"levels\n5", "Unsolvable (1)", "Solve times", "season=3", "suite=browser", "Slowest",
		"Difficulty scores", "3 rated levels", "Hardest (difficulty score) (3)"} {
		if !strings.Contains(page, want) {
			t.Errorf("batch page lacks %q:\n%s", want, page)
		}
	}
	tb.shot(t, "batch.png")
	tb.noErrors(t)
	return id
}

// batchesList checks that the batches page lists the batch, finished, and
// that its filter hides it for another label.
func batchesList(t *testing.T, b *browser, id int64) {
	tb := b.open(t, "batches", "/ui/")
	row := `tr[data-batch="` + strconv.FormatInt(id, 10) + `"]`
	tb.run(t, shown(row))
	if got := tb.text(t, row); !strings.Contains(got, "100%") || !strings.Contains(got, "suite=browser") {
		t.Errorf("batch row: %q", got)
	}
	tb.shot(t, "batches.png")
	tb.run(t, chromedp.SendKeys("#filter", "no-such-label", chromedp.ByID))
	if n := tb.count(t, row); n != 0 {
		t.Errorf("filter kept the batch row")
	}
	tb.noErrors(t)
}

// simulatorStates is the simulator's own list of states for a job's plan,
// computed here from the stored level and solution.
func simulatorStates(t *testing.T, c *client.Client, id int64) []solver.State {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	sol, err := c.GetSolution(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	lr, err := c.GetLevel(ctx, sol.LevelHash)
	if err != nil {
		t.Fatal(err)
	}
	reg := kinds.Registry()
	lvl, err := reg.Parse(lr.Body)
	if err != nil {
		t.Fatal(err)
	}
	states, err := reg.KindOf(lvl).(solver.Stepper).States(lvl, sol.Plan)
	if err != nil {
		t.Fatal(err)
	}
	var moves []json.RawMessage
	if json.Unmarshal(sol.Plan, &moves) == nil && len(moves) == 0 {
		t.Fatalf("job %d has an empty plan", id)
	}
	return states
}

// boardState checks that exactly one element has data-state and returns it.
func boardState(t *testing.T, tb *tab) string {
	t.Helper()
	if n := tb.count(t, "[data-state]"); n != 1 {
		t.Fatalf("%d elements carry data-state, want 1", n)
	}
	return tb.attr(t, "#board", "data-state")
}

// stepThrough opens a job's page and walks its whole replay with the
// right arrow, then back with the left arrow and Home, comparing
// data-state with the simulator at every step.
func stepThrough(t *testing.T, b *browser, c *client.Client, id int64, shot string) {
	want := simulatorStates(t, c, id)
	tb := b.open(t, "job-"+strconv.FormatInt(id, 10), "/ui/jobs/"+strconv.FormatInt(id, 10))
	tb.run(t, shown("#board"))
	difficultyShown(t, tb, c, id)
	for k := range want {
		if k > 0 {
			tb.run(t, chromedp.KeyEvent(kb.ArrowRight))
		}
		if got := boardState(t, tb); got != want[k].Text {
			t.Fatalf("step %d: data-state\n%s\nwant (simulator)\n%s", k, got, want[k].Text)
		}
		if got := tb.text(t, "#step-counter"); got != "step "+strconv.Itoa(k)+" / "+strconv.Itoa(len(want)-1) {
			t.Fatalf("step %d: counter %q", k, got)
		}
		if k == len(want)/2 { // mid-replay, for the docs
			tb.shot(t, shot)
		}
	}
	tb.run(t, chromedp.KeyEvent(kb.ArrowRight)) // past the end: stays
	if got := boardState(t, tb); got != want[len(want)-1].Text {
		t.Errorf("after the last step: %s", got)
	}
	tb.run(t, chromedp.KeyEvent(kb.ArrowLeft))
	if len(want) > 1 && boardState(t, tb) != want[len(want)-2].Text {
		t.Errorf("left arrow did not step back")
	}
	tb.run(t, chromedp.KeyEvent(kb.Home))
	if boardState(t, tb) != want[0].Text {
		t.Errorf("Home did not go to the start")
	}
	var url string
	tb.run(t, chromedp.Location(&url))
	if !strings.HasSuffix(url, "?step=0") {
		t.Errorf("address %s does not name the step", url)
	}
	tb.noErrors(t)
}

// atStep opens a job's page at ?step=k and checks the board.
func atStep(t *testing.T, b *browser, c *client.Client, id int64, k int, shot string) {
	want := simulatorStates(t, c, id)
	if len(want) <= k {
		t.Fatalf("job %d has %d states, want more than %d", id, len(want), k)
	}
	tb := b.open(t, "job-"+strconv.FormatInt(id, 10), "/ui/jobs/"+strconv.FormatInt(id, 10)+"?step="+strconv.Itoa(k))
	tb.run(t, shown("#board"))
	difficultyShown(t, tb, c, id)
	if got := boardState(t, tb); got != want[k].Text {
		t.Fatalf("?step=%d: data-state\n%s\nwant (simulator)\n%s", k, got, want[k].Text)
	}
	tb.shot(t, shot)
	tb.noErrors(t)
}

// browserPlayouts is the difficulty option the submit test sets: the batch
// is bulk, which gets no figures unless it asks.
const browserPlayouts = 300

// difficultyShown checks the level page's difficulty section against the
// figures GET /v1/jobs/{id} returns: the score, both players' wins with
// their interval, the first-move share and the effort for the kinds with
// playouts, the margin for twoends.
func difficultyShown(t *testing.T, tb *tab, c *client.Client, id int64) {
	t.Helper()
	job, err := c.GetJob(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if job.Difficulty == nil || job.Difficulty.Playouts != browserPlayouts {
		t.Fatalf("job %d: difficulty option %+v, want %d playouts from the submit page", id, job.Difficulty, browserPlayouts)
	}
	if job.Result == nil || len(job.Result.Difficulty) == 0 {
		t.Fatalf("job %d (%s) has no difficulty figures", id, job.Kind)
	}
	var f difficulty.Figures
	if err := json.Unmarshal(job.Result.Difficulty, &f); err != nil {
		t.Fatal(err)
	}
	tb.run(t, shown("#difficulty dl"))
	fig := func(name string) string {
		t.Helper()
		sel := `#difficulty [data-fig="` + name + `"]`
		if tb.count(t, sel) != 1 {
			t.Fatalf("job %d (%s): the page shows no %s figure:\n%s", id, job.Kind, name, tb.text(t, "#difficulty"))
		}
		return tb.text(t, sel)
	}
	want := map[string]string{"effort": strconv.FormatInt(f.NodesProof, 10) + " to the proof"}
	if f.Margin != nil {
		want["margin"] = strconv.FormatInt(*f.Margin, 10)
	}
	if f.Random != nil { // kinds with playouts
		want["playouts"] = strconv.Itoa(browserPlayouts) + " per player"
		want["random"] = strconv.Itoa(f.Random.Wins) + " of " + strconv.Itoa(f.Random.Games) + "; 95% interval"
		want["greedy"] = strconv.Itoa(f.Greedy.Wins) + " of " + strconv.Itoa(f.Greedy.Games) + "; 95% interval"
	}
	if f.Score != nil {
		want["score"] = strconv.Itoa(*f.Score) + " / 10"
	}
	if f.First != nil {
		want["first-moves"] = strconv.Itoa(f.First.Winning) + " of " + strconv.Itoa(f.First.Moves)
	}
	if f.Shortest != nil {
		want["shortest"] = strconv.Itoa(*f.Shortest) + " moves"
	}
	if job.Kind != "twoends" && (f.Random == nil || f.Score == nil || f.First == nil) {
		t.Fatalf("job %d (%s): figures lack the score, a win rate or the first-move share: %s", id, job.Kind, job.Result.Difficulty)
	}
	for name, w := range want {
		if got := fig(name); !strings.Contains(got, w) {
			t.Errorf("job %d (%s): %s shows %q, want it to contain %q", id, job.Kind, name, got, w)
		}
	}
}
