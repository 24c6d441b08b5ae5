package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/puzzled/puzzled/api/wire"
)

// rateWindow is how far back the rate of finished levels is measured.
const rateWindow = 10 * time.Second

// plainEvery is how often progress is printed when stderr is not a terminal.
const plainEvery = 5 * time.Second

// progress shows a batch's progress on stderr: a live bar on a terminal,
// a plain line every plainEvery otherwise.
type progress struct {
	w         io.Writer
	id        int64
	bar       *progressbar.ProgressBar // nil when w is not a terminal
	samples   []sample
	lastPlain time.Time
}

type sample struct {
	at   time.Time
	done int
}

func newProgress(w io.Writer, id int64) *progress {
	return &progress{w: w, id: id}
}

// update shows b as polled at time now.
func (p *progress) update(b wire.Batch, now time.Time) {
	done := finished(b)
	p.addSample(now, done)
	rate, eta := p.rate(b.Total - done)
	desc := describeProgress(b, rate, eta)
	if !isTerminal(p.w) {
		if now.Sub(p.lastPlain) >= plainEvery || done == b.Total {
			fmt.Fprintf(p.w, "batch %d: %d/%d %s\n", p.id, done, b.Total, desc)
			p.lastPlain = now
		}
		return
	}
	if p.bar == nil {
		p.bar = newBar(p.w, p.id, b.Total)
	}
	p.bar.Describe(fitLine(p.w, desc))
	_ = p.bar.Set(done)
}

// note shows a message (e.g. a poll that failed) without breaking the bar.
func (p *progress) note(msg string) {
	if p.bar != nil {
		p.bar.Describe(msg)
		return
	}
	fmt.Fprintf(p.w, "batch %d: %s\n", p.id, msg)
}

// finish ends the bar's line.
func (p *progress) finish() {
	if p.bar != nil {
		_ = p.bar.Exit()
		fmt.Fprintln(p.w)
	}
}

// barRoom is the width the bar's own parts need at least: percent, a
// short bar, counts and elapsed time.
const barRoom = 45

// fitLine cuts the description so that the bar's line fits the terminal:
// a wrapped line would break the redraw.
func fitLine(w io.Writer, desc string) string {
	f, ok := w.(*os.File)
	if !ok {
		return desc
	}
	width, _, err := term.GetSize(int(f.Fd()))
	if err != nil || width <= 0 {
		return desc
	}
	room := width - barRoom
	r := []rune(desc)
	switch {
	case room < 8:
		return ""
	case len(r) > room:
		return string(r[:room-1]) + "…"
	}
	return desc
}

func newBar(w io.Writer, id int64, total int) *progressbar.ProgressBar {
	return progressbar.NewOptions(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(fmt.Sprintf("batch %d", id)),
		progressbar.OptionShowDescriptionAtLineEnd(),
		progressbar.OptionShowCount(),
		progressbar.OptionSetWidth(30),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetPredictTime(false),
		progressbar.OptionThrottle(0),
		progressbar.OptionSetRenderBlankState(true),
		progressbar.OptionUseANSICodes(true),
		progressbar.OptionSetTheme(progressbar.Theme{
			Saucer: "=", SaucerHead: ">", SaucerPadding: " ", BarStart: "[", BarEnd: "]",
		}),
	)
}

// addSample records a poll and drops those older than rateWindow (keeping
// at least two).
func (p *progress) addSample(at time.Time, done int) {
	p.samples = append(p.samples, sample{at, done})
	for len(p.samples) > 2 && at.Sub(p.samples[0].at) > rateWindow {
		p.samples = p.samples[1:]
	}
}

// rate returns finished levels per second over the window and the time
// left for remaining levels at that rate (-1 when unknown).
func (p *progress) rate(remaining int) (float64, time.Duration) {
	if len(p.samples) < 2 {
		return 0, -1
	}
	first, last := p.samples[0], p.samples[len(p.samples)-1]
	dt := last.at.Sub(first.at).Seconds()
	if dt <= 0 {
		return 0, -1
	}
	r := float64(last.done-first.done) / dt
	if r <= 0 {
		return r, -1
	}
	return r, time.Duration(float64(remaining) / r * float64(time.Second))
}

// describeProgress is the text after the bar: rate, ETA and counts.
func describeProgress(b wire.Batch, rate float64, eta time.Duration) string {
	var parts []string
	parts = append(parts, fmt.Sprintf("%.0f/s", rate))
	switch {
	case finished(b) == b.Total:
		parts = append(parts, "ETA 0s")
	case eta >= 0:
		parts = append(parts, "ETA "+eta.Round(time.Second).String())
	default:
		parts = append(parts, "ETA ?")
	}
	return strings.Join(parts, " ") + " | " + countsText(b)
}

// countsText lists verdict counts, then failed and canceled, then what is
// still queued or running: "solved 1200 unknown 3 failed 1 running 2".
func countsText(b wire.Batch) string {
	var parts []string
	for _, kv := range sortedCounts(b.Verdicts) {
		parts = append(parts, fmt.Sprintf("%s %d", kv.key, kv.n))
	}
	for _, s := range []string{"failed", "canceled", "running", "queued"} {
		if n := b.States[s]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", s, n))
		}
	}
	if len(parts) == 0 {
		return "waiting"
	}
	return strings.Join(parts, " ")
}

// finished counts the jobs of b in a final state.
func finished(b wire.Batch) int {
	return b.States["done"] + b.States["failed"] + b.States["canceled"]
}

type count struct {
	key string
	n   int
}

// sortedCounts orders a count map by key.
func sortedCounts(m map[string]int) []count {
	out := make([]count, 0, len(m))
	for k, n := range m {
		out = append(out, count{k, n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key < out[j].key })
	return out
}
