package web_test

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/solver"
)

// TestGenerateAndRepairPages drives the generate form and the repair
// button in headless chromium against a real `puzzled dev`: a generation
// from a zuma template ends done with its levels in a batch, and the
// repair of an unsolvable zuma job ends with its fixes. No page may log
// an error.
func TestGenerateAndRepairPages(t *testing.T) {
	base, c := startDev(t)
	b := newBrowser(t, base)

	tb := b.open(t, "generate", "/ui/generate")
	tb.run(t,
		shown("#template"),
		chromedp.SetValue("#template", `{"kind":"zuma","board":"AABBCCAABB","hand":"AABBCC"}`, chromedp.ByID),
		chromedp.SetValue("#gen-count", "2", chromedp.ByID),
		chromedp.SetValue("#gen-min", "1", chromedp.ByID),
		chromedp.SetValue("#gen-max", "10", chromedp.ByID),
		chromedp.SetValue("#gen-playouts", "100", chromedp.ByID),
		chromedp.Click("#generate", chromedp.ByID),
	)
	waitGeneration(t, tb, "done")
	if got := tb.text(t, `[data-gen="kept"]`); got != "2 of 2" {
		t.Errorf("levels kept: %q", got)
	}
	if got := tb.text(t, `[data-gen="batch"]`); !strings.HasPrefix(got, "batch #") {
		t.Errorf("batch link: %q", got)
	}
	tb.noErrors(t)

	job, err := c.CreateJob(t.Context(), json.RawMessage(`{"kind":"zuma","board":"WRRBBW","hand":"RB"}`), jobtype.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for job.Result == nil || job.Result.Verdict != solver.Unsolvable {
		if job, err = c.WaitJob(t.Context(), job.ID, 10*time.Second); err != nil {
			t.Fatal(err)
		}
		if job.State == "done" && (job.Result == nil || job.Result.Verdict != solver.Unsolvable) {
			t.Fatalf("job %+v: want unsolvable", job)
		}
	}
	jp := b.open(t, "repair", "/ui/jobs/"+strconv.FormatInt(job.ID, 10))
	jp.run(t, shown("#repair"), chromedp.Click("#repair", chromedp.ByID))
	waitGeneration(t, jp, "done")
	// Adding a W to the hand fixes it (the two W's meet once RR and BB
	// are gone); the page shows the fixes found of the 3 asked for.
	if got := jp.text(t, `[data-gen="kept"]`); strings.HasPrefix(got, "0 ") || !strings.HasSuffix(got, " of 3") {
		t.Errorf("fixes: %q", got)
	}
	jp.noErrors(t)
}

// waitGeneration waits until the page is a generation page whose state
// is final, and wants it to be state.
func waitGeneration(t *testing.T, tb *tab, state string) {
	t.Helper()
	tb.run(t, shown(`[data-gen="state"]`))
	// The page redraws its facts at each poll: a read between two draws
	// finds no text, which is not a state.
	final := []string{"done", "exhausted", "canceled", "failed"}
	deadline := time.Now().Add(2 * time.Minute)
	got := tb.text(t, `[data-gen="state"]`)
	for !slices.Contains(final, got) && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
		got = tb.text(t, `[data-gen="state"]`)
	}
	if got != state {
		t.Fatalf("generation state %q, want %q: %s", got, state, tb.text(t, "#main"))
	}
}
