package web_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/puzzled/puzzled/api/client"
	"github.com/puzzled/puzzled/internal/waittest"
	"github.com/puzzled/puzzled/jobtype"
)

// editsPerLevel is how many edits the benchmark makes in each editor.
const editsPerLevel = 20

// BenchmarkEditToVerdict measures, in headless chromium against an idle
// `puzzled dev`, the time from an edit in the editor to its verdict on the
// page, by the page's own clock (performance.now at the edit event and
// when the verdict is drawn: validate, an interactive job, its long-poll
// and, when solved, its plan). Twenty edits of a 30-tile sheep level (a
// tile moved one unit by Shift+→, each a level not seen before) and of a
// zuma hand level (a new board typed in); it reports the p50 and p95 of
// each, in ms.
//
//	go test -run '^$' -bench EditToVerdict -benchtime 1x ./web/
func BenchmarkEditToVerdict(b *testing.B) {
	base, c := startDev(b)
	br := newBrowser(b, base)
	sheepHash := storedLevel(b, c, json.RawMessage(playable30(b)))
	zumaHash := storedLevel(b, c, json.RawMessage(`{"kind":"zuma","board":"RRGGBBRRWW","hand":"RGBWR"}`))
	b.ResetTimer()
	for range b.N {
		sheepMS := editSheep(b, br, sheepHash)
		zumaMS := editZuma(b, br, zumaHash)
		for name, ms := range map[string][]float64{"sheep30": sheepMS, "zuma-hand": zumaMS} {
			slices.Sort(ms)
			b.ReportMetric(ms[len(ms)/2], name+"-p50-ms")
			b.ReportMetric(ms[len(ms)*95/100], name+"-p95-ms")
			b.Logf("%s: edit-to-verdict ms, sorted: %.0f", name, ms)
		}
	}
}

// storedLevel submits a level and waits for its result: the editor opens
// stored levels.
func storedLevel(b *testing.B, c *client.Client, level json.RawMessage) string {
	job, err := c.CreateJob(b.Context(), level, jobtype.Options{})
	if err != nil {
		b.Fatal(err)
	}
	waittest.WaitFor(b, time.Minute, "the level is solved", func() bool {
		j, err := c.GetJob(b.Context(), job.ID)
		return err == nil && j.State == jobtype.Done
	})
	return job.LevelHash
}

// editSheep moves the first tile one unit right, editsPerLevel times,
// waiting for each verdict, and returns the page's timings.
func editSheep(b *testing.B, br *browser, hash string) []float64 {
	tb := br.open(b, "bench-sheep", "/ui/edit?level="+hash)
	tb.run(b, shown(`body[data-ready="true"]`),
		chromedp.Focus(`#edit-field .edit-tile`, chromedp.ByQuery))
	for i := 1; i <= editsPerLevel; i++ {
		tb.run(b, chromedp.KeyEvent(kb.ArrowRight, chromedp.KeyModifiers(input.ModifierShift)),
			chromedp.Poll(fmt.Sprintf(`window.puzzledEditTimings.length === %d`, i), nil, polling...))
	}
	return timings(b, tb)
}

// editZuma types editsPerLevel boards, each new and without a run of 3,
// waiting for each verdict, and returns the page's timings.
func editZuma(b *testing.B, br *browser, hash string) []float64 {
	tb := br.open(b, "bench-zuma", "/ui/edit?level="+hash)
	tb.run(b, shown(`body[data-ready="true"]`))
	rng := rand.New(rand.NewPCG(20, 150))
	seen := map[string]bool{}
	for i := 1; i <= editsPerLevel; i++ {
		board := zumaBoard(rng, 10)
		for seen[board] {
			board = zumaBoard(rng, 10)
		}
		seen[board] = true
		tb.run(b, chromedp.SetValue("#edit-board", board, chromedp.ByID),
			chromedp.Evaluate(`document.querySelector('#edit-board').dispatchEvent(new Event('input'))`, nil),
			chromedp.Poll(fmt.Sprintf(`window.puzzledEditTimings.length === %d`, i), nil, polling...))
	}
	return timings(b, tb)
}

// zumaBoard is a random board of n balls of R, G, B, W without a run of 3.
func zumaBoard(rng *rand.Rand, n int) string {
	out := make([]byte, 0, n)
	for len(out) < n {
		c := "RGBW"[rng.IntN(4)]
		if k := len(out); k >= 2 && out[k-1] == c && out[k-2] == c {
			continue
		}
		out = append(out, c)
	}
	return string(out)
}

func timings(b *testing.B, tb *tab) []float64 {
	var ms []float64
	var phases []map[string]float64
	tb.run(b, chromedp.Evaluate(`window.puzzledEditTimings`, &ms), chromedp.Evaluate(`window.puzzledEditPhases`, &phases))
	med := map[string]float64{}
	for _, name := range []string{"queued", "validate", "submit", "wait", "render"} {
		var xs []float64
		for _, p := range phases {
			xs = append(xs, p[name])
		}
		slices.Sort(xs)
		if len(xs) > 0 {
			med[name] = xs[len(xs)/2]
		}
	}
	b.Logf("%s: median ms of each step: %v", tb.name, med)
	if len(ms) != editsPerLevel {
		b.Fatalf("%d timings, want %d", len(ms), editsPerLevel)
	}
	tb.noErrors(b)
	return ms
}
