package web_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/puzzled/puzzled/internal/e2etest"
)

// TestWorkbenchWithToken: with API tokens configured the pages ask for
// one, keep it in session storage and send it with every API call.
func TestWorkbenchWithToken(t *testing.T) {
	s := e2etest.StartStack(t, "PUZZLED_API_TOKENS=ci:s3cret-token")
	b := newBrowser(t, s.URL)
	tb := b.open(t, "submit-with-token", "/ui/submit")
	tb.run(t,
		shown("#levels"),
		chromedp.SetValue("#levels", `{"kind":"twoends","values":[5,1,4]}`, chromedp.ByID),
		chromedp.Click("#submit", chromedp.ByID),
		shown("#submit-status .error"),
	)
	if got := tb.text(t, "#submit-status"); !strings.Contains(got, "token") {
		t.Fatalf("without a token: %q", got)
	}

	tb.run(t,
		chromedp.SendKeys("#token", "s3cret-token", chromedp.ByID),
		chromedp.Blur("#token", chromedp.ByID), // change: stored, page reloads
	)
	var stored string
	deadline := time.Now().Add(time.Minute)
	for stored == "" && time.Now().Before(deadline) {
		tb.run(t, chromedp.Evaluate(`sessionStorage.getItem('puzzled-token') || ''`, &stored))
		time.Sleep(50 * time.Millisecond)
	}
	if stored != "s3cret-token" {
		t.Fatalf("session storage holds %q", stored)
	}
	tb.run(t,
		shown("#levels"),
		chromedp.SetValue("#levels", `{"kind":"twoends","values":[5,1,4]}`, chromedp.ByID),
		chromedp.Click("#submit", chromedp.ByID),
		shown("#board"),
	)
	if got := boardState(t, tb); got != "twoends 0\nrow 5 1 4\nfirst 0\nsecond 0\nturn first" {
		t.Fatalf("data-state %q", got)
	}
	// The jobs page lists it, and its download carries the token too.
	tb.run(t,
		chromedp.Navigate(s.URL+"/ui/jobs"),
		shown("#jobs tbody tr[data-job]"),
		chromedp.Click("#download-ndjson", chromedp.ByID),
		chromedp.Poll(`document.querySelector('#jobs-status').textContent === '1 job downloaded as NDJSON.'`, nil, polling...))
}
