package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/puzzled/puzzled/api/client"
	"github.com/puzzled/puzzled/api/wire"
	"github.com/puzzled/puzzled/internal/waittest"
	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/kinds"
	"github.com/puzzled/puzzled/solver/sheep"
)

// fixable is a sheep level that cannot be won only because of its type
// counts (type 1 has four tiles, type 2 two): giving tile f type 2 fixes
// it. Its six tiles lie side by side on one layer.
const fixable = `{"kind":"sheep","tiles":[` +
	`{"id":"a","type":1,"x":0,"y":0,"layer":1},{"id":"b","type":1,"x":10,"y":0,"layer":1},` +
	`{"id":"c","type":1,"x":20,"y":0,"layer":1},{"id":"d","type":2,"x":30,"y":0,"layer":1},` +
	`{"id":"e","type":2,"x":40,"y":0,"layer":1},{"id":"f","type":1,"x":50,"y":0,"layer":1}]}`

// shortHand is a zuma level whose hand cannot clear the board.
const shortHand = `{"kind":"zuma","board":"RGGBB","hand":"G"}`

// playable30 is a solvable generated 30-tile sheep level in three
// layers with a tray of 6, whose plan is long enough to play five moves
// from step 3, and where a click can lose the game for good.
func playable30(t testing.TB) string {
	t.Helper()
	g, err := sheep.Generate(rand.New(rand.NewPCG(33, 32)), sheep.GenerateOpts{Tiles: 30, Layers: 3, Types: 5, Slots: 6, Solvable: true})
	if err != nil {
		t.Fatal(err)
	}
	return string(g.Level.Canonical())
}

// TestDesignerLoop drives a level designer's whole loop in headless
// chromium against a real `puzzled dev`: submit a labelled batch; find its
// unsolvable levels through the jobs page's filters; open one, read why it
// fails, edit a copy (by keyboard) until it is solvable while the verdict
// changes live, save it and find the new run linked to its parent; play
// five moves by hand from step 3 of a stored plan, "still winnable"
// agreeing with the solver at each move; cancel a running job from its
// page; play a move and open the editor of a level of every kind (each
// kind's module draws, edits and offers its moves), and find the server's
// kinds in the filters; at 400 px no page scrolls sideways. No page may
// log an error.
func TestDesignerLoop(t *testing.T) {
	// A checkpoint a second: the running job's page shows its best line
	// so far from its first checkpoint on.
	base, c := startDev(t, "PUZZLED_CHECKPOINT_EVERY=1s")
	b := newBrowser(t, base)
	levels := []string{fixable, shortHand, playable30(t), `{"kind":"twoends","values":[3,9,1,2,7,4,8]}`}

	batch := submitLabelled(t, b, levels)
	var results []wire.BatchResult
	if err := c.BatchResults(t.Context(), batch, func(r wire.BatchResult) error {
		results = append(results, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	byLevel := map[int32]wire.BatchResult{}
	for _, r := range results {
		byLevel[r.Seq] = r
	}
	fixJob, playJob := byLevel[0].JobID, byLevel[2].JobID
	if byLevel[0].Result.Verdict != solver.Unsolvable || byLevel[1].Result.Verdict != solver.Unsolvable || byLevel[2].Result.Verdict != solver.Solved {
		t.Fatalf("batch verdicts: %+v", results)
	}
	visited := []string{"/ui/", "/ui/submit", "/ui/batches/" + strconv.FormatInt(batch, 10)}

	var parent string
	t.Run("find the unsolvable levels", func(t *testing.T) {
		visited = append(visited, findUnsolvable(t, b, c, batch, []int64{byLevel[0].JobID, byLevel[1].JobID}))
	})
	t.Run("read why it fails", func(t *testing.T) {
		parent = readWhy(t, b, fixJob)
		visited = append(visited, "/ui/jobs/"+strconv.FormatInt(fixJob, 10), "/ui/jobs/"+strconv.FormatInt(byLevel[1].JobID, 10))
	})
	t.Run("edit a copy until solvable", func(t *testing.T) {
		visited = append(visited, editUntilSolvable(t, b, c, parent)...)
	})
	t.Run("play five moves from step 3", func(t *testing.T) {
		playFromStep(t, b, c, playJob, 3, 5)
		visited = append(visited, "/ui/jobs/"+strconv.FormatInt(playJob, 10)+"?step=3")
	})
	t.Run("cancel a running job", func(t *testing.T) {
		visited = append(visited, cancelFromPage(t, b, c))
	})
	t.Run("every kind edits and plays", func(t *testing.T) {
		hashes := []string{byLevel[0].LevelHash, byLevel[1].LevelHash, byLevel[3].LevelHash, solvedLevel(t, c, columnsLevel)}
		for _, hash := range hashes {
			editAndPlay(t, b, hash)
		}
	})
	t.Run("the filters offer the server's kinds", func(t *testing.T) { kindFilters(t, b) })
	t.Run("400 px", func(t *testing.T) {
		visited = append(visited, "/ui/jobs", "/ui/levels", "/ui/levels/"+byLevel[2].LevelHash)
		noSidewaysScroll(t, b, visited)
	})
}

// submitLabelled pastes levels as NDJSON on the submit page with labels
// chapter=3 and follows the batch until its report shows.
func submitLabelled(t *testing.T, b *browser, levels []string) int64 {
	tb := b.open(t, "submit-labelled", "/ui/submit")
	tb.run(t,
		shown("#levels"),
		chromedp.SetValue("#levels", strings.Join(levels, "\n"), chromedp.ByID),
		chromedp.SetValue("#labels", "chapter=3, suite=designer", chromedp.ByID),
		chromedp.SetValue("#priority", "interactive", chromedp.ByID),
		chromedp.Click("#submit", chromedp.ByID),
		shown(`#batch-summary[data-done="true"]`),
		shown(`section[data-ready="true"]`))
	page := tb.text(t, "#main")
	if strings.Contains(page, "null") {
		t.Errorf("the batch page shows a stray null:\n%s", page)
	}
	var loc string
	tb.run(t, chromedp.Location(&loc))
	id, err := strconv.ParseInt(loc[strings.LastIndex(loc, "/")+1:], 10, 64)
	if err != nil {
		t.Fatalf("after submit the page is %s", loc)
	}
	if n := tb.count(t, `#batch-jobs[href="/ui/jobs?batch=`+strconv.FormatInt(id, 10)+`"]`); n != 1 {
		t.Errorf("the batch page does not link all its jobs")
	}
	tb.noErrors(t)
	return id
}

// findUnsolvable filters the jobs page by label and verdict through its
// form and checks that it lists exactly the batch's unsolvable jobs, with
// the filters in the address.
func findUnsolvable(t *testing.T, b *browser, c *client.Client, batch int64, want []int64) string {
	tb := b.open(t, "jobs-filter", "/ui/jobs")
	tb.run(t,
		shown("#job-filters"),
		chromedp.SendKeys("#f-label", "chapter:3", chromedp.ByID),
		chromedp.SetValue("#f-verdict", "unsolvable", chromedp.ByID),
		chromedp.Click("#apply-filters", chromedp.ByID),
		chromedp.Poll(`location.search.includes('verdict=unsolvable') && document.querySelectorAll('#jobs tbody tr[data-job]').length > 0 &&
			[...document.querySelectorAll('#jobs tbody tr[data-job]')].every((r) => r.dataset.verdict === 'unsolvable')`, nil, polling...))
	var ids []string
	tb.run(t, chromedp.Evaluate(`[...document.querySelectorAll('#jobs tbody tr[data-job]')].map((r) => r.dataset.job)`, &ids))
	var got []int64
	for _, s := range ids {
		n, _ := strconv.ParseInt(s, 10, 64)
		got = append(got, n)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("the filtered jobs page lists %v, want the batch's unsolvable jobs %v", got, want)
	}
	var loc string
	tb.run(t, chromedp.Location(&loc))
	u, _ := url.Parse(loc)
	if u.Query().Get("label") != "chapter:3" || u.Query().Get("verdict") != "unsolvable" {
		t.Errorf("the address does not carry the filters: %s", loc)
	}
	// The API agrees.
	items, _, err := c.ListPage(t.Context(), "/v1/jobs", client.Filter{"label": {"chapter:3"}, "verdict": {"unsolvable"}})
	if err != nil || len(items) != len(want) {
		t.Errorf("GET /v1/jobs?label=chapter:3&verdict=unsolvable: %d items, %v", len(items), err)
	}
	// The filtered list downloads whole.
	tb.run(t, chromedp.Click("#download-csv", chromedp.ByID),
		chromedp.Poll(fmt.Sprintf(`document.querySelector('#jobs-status').textContent === '%d jobs downloaded as CSV.'`, len(want)), nil, polling...))
	// Every job of the batch is on the page for batch=ID.
	tb.run(t, chromedp.Navigate(b.base+"/ui/jobs?batch="+strconv.FormatInt(batch, 10)),
		chromedp.Poll(`document.querySelectorAll('#jobs tbody tr[data-job]').length === 4`, nil, polling...))
	tb.shot(t, "jobs.png")
	tb.noErrors(t)
	return "/ui/jobs?label=chapter:3&verdict=unsolvable"
}

// readWhy opens the unsolvable sheep job from the filtered list and reads
// the reason: the type counts, named. It returns the level's hash.
func readWhy(t *testing.T, b *browser, id int64) string {
	tb := b.open(t, "why", "/ui/jobs?label=chapter:3&verdict=unsolvable")
	tb.run(t, shown(fmt.Sprintf(`tr[data-job="%d"] a`, id)),
		chromedp.Click(fmt.Sprintf(`tr[data-job="%d"] a`, id), chromedp.ByQuery),
		shown("#why-summary"))
	why := tb.text(t, "#why-summary")
	if !strings.Contains(why, "type 1 (A) has 4") || !strings.Contains(why, "type 2 (B) has 2") {
		t.Errorf("the reason does not name the type counts: %q", why)
	}
	if tb.count(t, "#why-counts tbody tr") != 2 {
		t.Errorf("the counts table does not list both types")
	}
	tb.run(t, chromedp.Click("#why-show", chromedp.ByID))
	if n := tb.count(t, "#board .tile.marked"); n != 6 {
		t.Errorf("%d tiles marked on the board, want the 6 of the two types", n)
	}
	tb.shot(t, "job-why.png")
	href := tb.attr(t, "#level-link", "href")
	tb.noErrors(t)
	return strings.TrimPrefix(href, "/ui/levels/")
}

// editUntilSolvable opens the editor from the level page, moves tile f by
// keyboard (still unsolvable), then raises its type (solvable): the
// verdict changes while editing. Save opens the new job, linked to its
// parent, and the parent's level page lists the copy.
func editUntilSolvable(t *testing.T, b *browser, c *client.Client, parent string) []string {
	tb := b.open(t, "edit", "/ui/levels/"+parent)
	tb.run(t, shown("#level-json"))
	levelJSON := tb.text(t, "#level-json")
	if v, err := c.ValidateLevel(t.Context(), json.RawMessage(levelJSON)); err != nil || !v.Valid || v.Hash != parent {
		t.Errorf("the level JSON shown is not what Submit takes back: %v %+v", err, v)
	}
	tb.run(t, chromedp.Click("#edit-copy", chromedp.ByID),
		shown(`#edit-field [data-id="f"]`),
		chromedp.Focus(`#edit-field [data-id="f"]`, chromedp.ByQuery),
		chromedp.KeyEvent(kb.ArrowDown),
		chromedp.Poll(`document.querySelector('#check').dataset.state === 'done'`, nil, polling...))
	if v := tb.attr(t, "#verdict", "data-verdict"); v != "unsolvable" {
		t.Fatalf("after moving f: verdict %s", v)
	}
	if got := tb.text(t, "#changes"); !strings.Contains(got, "tile f moved from (50, 0) to (50, 4)") {
		t.Errorf("changes: %q", got)
	}
	// An invalid edit is named before any solve: a type out of range.
	tb.run(t, chromedp.Focus(`#edit-field [data-id="f"]`, chromedp.ByQuery))
	tb.run(t, chromedp.SetValue("#edit-tile-type", "-1", chromedp.ByID),
		chromedp.Evaluate(`document.querySelector('#edit-tile-type').dispatchEvent(new Event('change'))`, nil),
		chromedp.Poll(`document.querySelector('#check').dataset.state === 'invalid'`, nil, polling...))
	if got := tb.text(t, "#edit-error"); !strings.Contains(got, "tiles[5].type") {
		t.Errorf("invalid edit: %q", got)
	}
	tb.run(t, chromedp.SetValue("#edit-tile-type", "2", chromedp.ByID),
		chromedp.Evaluate(`document.querySelector('#edit-tile-type').dispatchEvent(new Event('change'))`, nil),
		chromedp.Poll(`document.querySelector('#check').dataset.state === 'done' && document.querySelector('#verdict').dataset.verdict === 'solved'`, nil, polling...))
	if got := tb.text(t, "#verdict-change"); got != "verdict: unsolvable → solved" {
		t.Errorf("verdict change: %q", got)
	}
	if got := tb.text(t, "#plan-length"); got != "6 moves" {
		t.Errorf("plan length %q", got)
	}
	tb.shot(t, "edit-sheep.png")
	tb.run(t, chromedp.Click("#save", chromedp.ByID), shown("#parent-link"))
	if href := tb.attr(t, "#parent-link", "href"); href != "/ui/levels/"+parent {
		t.Errorf("the saved job links %s, want its parent %s", href, parent)
	}
	var loc string
	tb.run(t, chromedp.Location(&loc))
	u, _ := url.Parse(loc)
	saved, _ := strconv.ParseInt(strings.TrimPrefix(u.Path, "/ui/jobs/"), 10, 64)
	job, err := c.GetJob(t.Context(), saved)
	if err != nil || !strings.Contains(string(job.Labels), `"parent":"`+parent+`"`) {
		t.Errorf("saved job %d: labels %s, %v", saved, job.Labels, err)
	}
	tb.run(t, chromedp.Click("#parent-link", chromedp.ByID),
		shown(fmt.Sprintf(`#copies-list a[href="/ui/jobs/%d"]`, saved)))
	tb.noErrors(t)
	return []string{"/ui/levels/" + parent, "/ui/edit?level=" + parent, "/ui/jobs/" + strconv.FormatInt(saved, 10)}
}

// playFromStep opens a solved job at ?step=k, starts playing there and
// clicks moves by hand (the first clickable tile each time, by keyboard
// every other move): after each move the page's board is the simulator's
// state and its "still winnable" is what the kind's solver says here.
func playFromStep(t *testing.T, b *browser, c *client.Client, id int64, k, moves int) {
	sol, err := c.GetSolution(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	lr, err := c.GetLevel(t.Context(), sol.LevelHash)
	if err != nil {
		t.Fatal(err)
	}
	var plan []string
	if err := json.Unmarshal(sol.Plan, &plan); err != nil || len(plan) < k+moves {
		t.Fatalf("job %d: plan %s", id, sol.Plan)
	}
	tb := b.open(t, "play", fmt.Sprintf("/ui/jobs/%d?step=%d", id, k))
	tb.run(t, shown("#play-here"), chromedp.Click("#play-here", chromedp.ByID),
		chromedp.Poll(fmt.Sprintf(`(document.querySelector('#play-verdict') || {dataset: {}}).dataset.step === '%d' &&
			document.querySelector('#play-verdict').dataset.ready === 'true'`, k), nil, polling...))
	played := append([]string(nil), plan[:k]...)
	agree := map[string]int{}
	for i := 1; i <= moves; i++ {
		// The stored plan's moves, then clicks that do not end the game,
		// one after which the level cannot be won when there is one: a line
		// that stays winnable, then one that does not (this level has such
		// a click at the fifth move).
		tile := plan[len(played)]
		if i >= 4 {
			tile = nextClick(t, lr.Body, played, true)
		}
		if tb.count(t, fmt.Sprintf(`#play-board .field .tile.playable[data-id=%q]`, tile)) != 1 {
			t.Fatalf("move %d: tile %s is not offered", i, tile)
		}
		sel := fmt.Sprintf(`#play-board .field .tile.playable[data-id=%q]`, tile)
		if i%2 == 0 {
			tb.run(t, chromedp.Focus(sel, chromedp.ByQuery), chromedp.KeyEvent(kb.Enter))
		} else {
			tb.run(t, chromedp.Click(sel, chromedp.ByQuery))
		}
		played = append(played, tile)
		tb.run(t, chromedp.Poll(fmt.Sprintf(`document.querySelector('#play-verdict').dataset.step === '%d' &&
			document.querySelector('#play-verdict').dataset.ready === 'true'`, k+i), nil, polling...))
		winnable := tb.attr(t, "#play-verdict", "data-winnable")
		state := tb.attr(t, "#play-board", "data-state")
		wantWin, wantState := solveAt(t, lr.Body, played)
		if state != wantState {
			t.Fatalf("move %d (%s): board\n%s\nwant (simulator)\n%s", i, tile, state, wantState)
		}
		if winnable != wantWin {
			t.Errorf("move %d (%s): the page says winnable %s, the solver %s", i, tile, winnable, wantWin)
		}
		agree[wantWin]++
	}
	t.Logf("played %v from step %d: %v", played[k:], k, agree)
	if agree["true"] == 0 || agree["false"] == 0 {
		t.Errorf("the line played did not meet both answers: %v", agree)
	}
	var loc string
	tb.run(t, chromedp.Location(&loc))
	if u, _ := url.Parse(loc); u.Query().Get("step") != strconv.Itoa(k) || u.Query().Get("play") == "" {
		t.Errorf("the address does not name the played line: %s", loc)
	}
	tb.shot(t, "play-sheep.png")
	tb.noErrors(t)
	// The address alone reopens the same position.
	again := b.open(t, "play-again", strings.TrimPrefix(loc, b.base))
	again.run(t, chromedp.Poll(fmt.Sprintf(`(document.querySelector('#play-verdict') || {dataset: {}}).dataset.step === '%d'`, k+moves), nil, polling...))
	if _, wantState := solveAt(t, lr.Body, played); again.attr(t, "#play-board", "data-state") != wantState {
		t.Errorf("the shared address shows another position")
	}
	again.noErrors(t)
}

// nextClick is a legal click after moves that does not end the game: the
// first in id order, or, with dead, the first after which the solver says
// the level cannot be won, if there is one.
func nextClick(t *testing.T, level json.RawMessage, moves []string, dead bool) string {
	t.Helper()
	reg := kinds.Registry()
	lvl, err := reg.Parse(level)
	if err != nil {
		t.Fatal(err)
	}
	pos := reg.KindOf(lvl).(solver.Positioner)
	plan, _ := json.Marshal(moves)
	p, err := pos.Position(lvl, plan)
	if err != nil {
		t.Fatal(err)
	}
	var ok []string
	for _, m := range p.Moves {
		var id string
		_ = json.Unmarshal(m, &id)
		next, _ := json.Marshal(append(append([]string(nil), moves...), id))
		if q, err := pos.Position(lvl, next); err == nil && !q.Over {
			ok = append(ok, id)
		}
	}
	if len(ok) == 0 {
		t.Fatalf("no click after %v keeps the game going", moves)
	}
	if dead {
		for _, id := range ok {
			if win, _ := solveAt(t, level, append(append([]string(nil), moves...), id)); win == "false" {
				return id
			}
		}
	}
	return ok[0]
}

// solveAt is the kind's simulator and solver, run here, on the position
// after moves: "true", "false" (or "unknown") and the state text.
func solveAt(t *testing.T, level json.RawMessage, moves []string) (string, string) {
	t.Helper()
	reg := kinds.Registry()
	lvl, err := reg.Parse(level)
	if err != nil {
		t.Fatal(err)
	}
	k := reg.KindOf(lvl)
	plan, _ := json.Marshal(moves)
	states, err := k.(solver.Stepper).States(lvl, plan)
	if err != nil {
		t.Fatal(err)
	}
	p, err := k.(solver.Positioner).Position(lvl, plan)
	if err != nil {
		t.Fatal(err)
	}
	text := states[len(states)-1].Text
	if p.Over {
		return strconv.FormatBool(p.Won), text
	}
	res, err := k.Solve(context.Background(), p.Level, solver.Options{Budget: solver.Budget{MaxMS: 2000}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Verdict.Definitive() {
		return "unknown", text
	}
	return strconv.FormatBool(res.Verdict == solver.Solved), text
}

// endless is a columns level whose beam search runs until its budget: a
// thousand pieces and a score goal no line reaches but no bound refutes.
func endless() json.RawMessage {
	rng := rand.New(rand.NewPCG(1, 1000))
	pieces := make([]string, 1000)
	for i := range pieces {
		for range 3 {
			pieces[i] += string("RGBY"[rng.IntN(4)])
		}
	}
	data, _ := json.Marshal(map[string]any{"kind": "columns", "width": 6, "height": 13, "pieces": pieces,
		"goal": map[string]any{"type": "score", "score": 1_000_000}})
	return data
}

// cancelFromPage submits a level that runs until its budget of ten
// minutes, opens its page while it runs, reads the live progress and
// cancels it there.
func cancelFromPage(t *testing.T, b *browser, c *client.Client) string {
	job, err := c.CreateJob(t.Context(), endless(), jobtype.Options{Priority: jobtype.Bulk, Budget: solver.Budget{MaxMS: 600_000}})
	if err != nil {
		t.Fatal(err)
	}
	var running wire.Job
	waittest.WaitFor(t, time.Minute, "the hard job runs and checkpoints its best line", func() bool {
		running, err = c.GetJob(t.Context(), job.ID)
		return err == nil && running.State == jobtype.Running && running.Progress != nil && running.Progress.Best != nil
	})
	path := "/ui/jobs/" + strconv.FormatInt(job.ID, 10)
	tb := b.open(t, "cancel", path)
	tb.run(t, shown(`.live[data-state="running"] [data-live="elapsed"]`))
	if got := tb.text(t, `[data-live="elapsed"]`); !strings.HasSuffix(got, "s") {
		t.Errorf("elapsed: %q", got)
	}
	// The best line so far, as the last checkpoint has it (the page polls:
	// a later checkpoint may have a longer line, never none).
	best := tb.text(t, `[data-live="best"]`)
	if m := regexp.MustCompile(`^(\d+) moves?, score \d+$`).FindStringSubmatch(best); m == nil {
		t.Errorf("best line so far: %q, want its moves and score (the API said %d moves, %v)", best,
			running.Progress.Best.Moves, running.Progress.Best.Details)
	}
	tb.shot(t, "job-running.png")
	tb.run(t, clickNow("#cancel-job"), // the live section is redrawn at every poll
		chromedp.Poll(`(document.querySelector('[data-fact="state"]') || {}).textContent === 'canceled'`, nil, polling...))
	if j, err := c.GetJob(t.Context(), job.ID); err != nil || j.State != jobtype.Canceled {
		t.Errorf("after Cancel on the page the job is %s (%v)", j.State, err)
	}
	tb.noErrors(t)
	return path
}

// columnsLevel is a small columns level that can be survived.
const columnsLevel = `{"kind":"columns","width":4,"height":6,"rule":"lines","board":["....","....","....","....","....","AB.C"],` +
	`"pieces":["AAB","BBC","CCA"],"goal":{"type":"survive"}}`

// solvedLevel submits level, waits for its job to be final and returns
// the level's hash.
func solvedLevel(t *testing.T, c *client.Client, level string) string {
	job, err := c.CreateJob(t.Context(), json.RawMessage(level), jobtype.Options{})
	if err != nil {
		t.Fatal(err)
	}
	waittest.WaitFor(t, time.Minute, "the job is final", func() bool {
		j, err := c.GetJob(t.Context(), job.ID)
		return err == nil && j.State.Final()
	})
	return job.LevelHash
}

// editAndPlay opens a level's page and plays the first move its kind's
// controls offer (kinds/<kind>.js: playControls), then opens its editor
// (kinds/<kind>.js: editor), sends the level back through the JSON box,
// which redraws the kind's editor, and waits for the check to finish.
func editAndPlay(t *testing.T, b *browser, hash string) {
	tb := b.open(t, "edit-and-play-"+hash[:8], "/ui/levels/"+hash)
	tb.run(t, shown(`body[data-ready="true"]`),
		chromedp.Poll(`document.querySelector('#play-verdict').dataset.ready === 'true'`, nil, polling...))
	offered := `#play-controls button.gap:not([disabled]), #play-controls button.col:not([disabled]), #play-controls button.take, #play-board .tile.playable`
	if n := tb.count(t, offered); n == 0 {
		t.Fatalf("level %s: no move offered to play", hash)
	}
	tb.run(t, chromedp.Evaluate(fmt.Sprintf(`document.querySelector(%q).click()`, offered), nil),
		chromedp.Poll(`document.querySelector('#play-verdict').dataset.step === '1' && document.querySelector('#play-verdict').dataset.ready === 'true'`, nil, polling...))
	level := tb.text(t, "#level-json")
	tb.run(t, chromedp.Navigate(b.base+"/ui/edit?level="+hash),
		shown(`body[data-ready="true"]`))
	if n := tb.count(t, ".edit-main > *"); n != 1 {
		t.Fatalf("level %s: the editor shows %d elements", hash, n)
	}
	tb.run(t, chromedp.SetValue("#edit-json", level, chromedp.ByID),
		chromedp.Evaluate(`document.querySelector('#edit-json').dispatchEvent(new Event('input'))`, nil),
		chromedp.Poll(`document.querySelector('#check').dataset.state === 'done'`, nil, polling...))
	if got := tb.text(t, "#changes"); !strings.Contains(got, "nothing (the same level)") {
		t.Errorf("level %s: the same level sent back reads as changed: %q", hash, got)
	}
	tb.noErrors(t)
}

// kindFilters: the jobs and levels pages offer the server's kinds.
func kindFilters(t *testing.T, b *browser) {
	want := kinds.Registry().Names()
	for _, page := range []string{"/ui/jobs", "/ui/levels"} {
		tb := b.open(t, "kinds"+strings.ReplaceAll(page, "/", "-"), page)
		var got []string
		tb.run(t, shown(`body[data-ready="true"]`),
			chromedp.Evaluate(`[...document.querySelectorAll('#f-kind option')].map((o) => o.value).filter(Boolean)`, &got))
		if !slices.Equal(got, want) {
			t.Errorf("%s offers kinds %v, want the registry's %v", page, got, want)
		}
		tb.noErrors(t)
	}
}

// noSidewaysScroll opens every page at 400 px and checks that none is
// wider than the window.
func noSidewaysScroll(t *testing.T, b *browser, paths []string) {
	for i, p := range paths {
		tb := b.open(t, "narrow-"+strconv.Itoa(i), p)
		var sw, cw int
		tb.run(t, chromedp.EmulateViewport(400, 900),
			shown(`body[data-ready="true"]`),
			chromedp.Evaluate(`document.documentElement.scrollWidth`, &sw),
			chromedp.Evaluate(`document.documentElement.clientWidth`, &cw))
		if sw > cw {
			var wide string
			tb.run(t, chromedp.Evaluate(`[...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1 && !e.closest('.scroll-x')).slice(0, 5).map((e) => e.tagName + '.' + e.className + '#' + e.id).join(' ')`, &wide))
			t.Errorf("%s at 400 px: %d px wide (window %d): %s", p, sw, cw, wide)
		}
		tb.noErrors(t)
	}
}

// polling waits on a condition in the page until the action's deadline
// (tab.run's), checking every 50 ms.
var polling = []chromedp.PollOption{chromedp.WithPollingInterval(50 * time.Millisecond), chromedp.WithPollingTimeout(0)}
