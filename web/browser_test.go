package web_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/puzzled/puzzled/api/client"
	"github.com/puzzled/puzzled/internal/e2etest"
)

// chromiumPath is Debian's headless-capable browser; .ci/run installs it.
const chromiumPath = "/usr/bin/chromium"

// startDev runs a real `puzzled dev` (API, worker, embedded PostgreSQL and
// Redis) in a data folder of the test's own, with env added to its
// environment, and stops it with SIGINT at cleanup.
func startDev(t testing.TB, env ...string) (string, *client.Client) {
	t.Helper()
	dir, err := os.MkdirTemp("", "puzzled-web-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil { // postgres runs as another user
		t.Fatal(err)
	}
	p := e2etest.Start(t, env, "dev", "--data-dir", dir, "--http-addr", "127.0.0.1:0")
	t.Cleanup(func() {
		p.Signal(syscall.SIGINT)
		select {
		case <-p.Done():
		case <-time.After(time.Minute):
		}
	})
	url := "http://" + p.WaitLog("api listening", 2*time.Minute)["addr"].(string)
	return url, client.New(url)
}

// browser is one headless chromium with a tab per page visit.
type browser struct {
	t         testing.TB
	base      string
	ctx       context.Context
	artifacts string // where screenshots of failures go
	docs      string // PUZZLED_WEB_SCREENSHOTS: where page screenshots go
}

func newBrowser(t testing.TB, base string) *browser {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Fatalf("browser tests need %s (apt-get install -y chromium; .ci/run does it): %v", chromiumPath, err)
	}
	// Not t.TempDir: chromium's helper processes can still write to the
	// profile for a moment after the browser has exited, and TempDir's
	// cleanup fails the test when the folder is not empty.
	profile, err := os.MkdirTemp("", "puzzled-web-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1100, 1000),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
		removeEventually(profile)
	})
	if err := chromedp.Run(ctx); err != nil { // starts the browser, without a deadline
		t.Fatalf("start chromium: %v", err)
	}
	art, err := os.MkdirTemp("", "puzzled-web-artifacts-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !t.Failed() {
			os.RemoveAll(art)
		}
	})
	return &browser{t: t, base: base, ctx: ctx, artifacts: art, docs: os.Getenv("PUZZLED_WEB_SCREENSHOTS")}
}

// removeEventually removes dir, trying again for a few seconds while
// late writers still add files to it; what is left after that stays in
// the system's temporary folder.
func removeEventually(dir string) {
	for i := 0; i < 20; i++ {
		if os.RemoveAll(dir) == nil {
			return
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// tab is one page visit; it records console errors and uncaught
// exceptions, and failed loads that the browser logs.
type tab struct {
	b    *browser
	ctx  context.Context
	name string

	mu     sync.Mutex
	errors []string
}

// open opens path in a new tab. At the end of the calling test the tab
// must have logged no error; a failed test leaves a screenshot of it.
func (b *browser) open(t testing.TB, name, path string) *tab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(b.ctx)
	tb := &tab{b: b, ctx: ctx, name: name}
	chromedp.ListenTarget(ctx, func(ev any) {
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.APITypeError || ev.Type == runtime.APITypeWarning || ev.Type == runtime.APITypeAssert {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				tb.record("console." + string(ev.Type) + ": " + strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			tb.record("exception: " + ev.ExceptionDetails.Error())
		case *cdplog.EventEntryAdded:
			if ev.Entry.Level == cdplog.LevelError {
				tb.record("log: " + ev.Entry.Text + " " + ev.Entry.URL)
			}
		}
	})
	t.Cleanup(func() {
		if t.Failed() {
			tb.screenshot(filepath.Join(b.artifacts, name+"-failure.png"))
			t.Logf("screenshot of the failed page %q: %s", name, filepath.Join(b.artifacts, name+"-failure.png"))
		}
		cancel()
	})
	// The first Run creates the tab; a deadline on it would close the tab.
	if err := chromedp.Run(ctx, cdplog.Enable()); err != nil {
		t.Fatalf("%s: open a tab: %v", name, err)
	}
	target := b.base + path
	if strings.Contains(path, "://") { // a page of another server
		target = path
	}
	tb.run(t, chromedp.Navigate(target))
	return tb
}

func (tb *tab) record(msg string) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	tb.errors = append(tb.errors, msg)
}

// run runs actions with a deadline; a failure fails the test.
func (tb *tab) run(t testing.TB, actions ...chromedp.Action) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 90*time.Second)
	defer cancel()
	if err := chromedp.Run(ctx, actions...); err != nil {
		t.Fatalf("%s: %v", tb.name, err)
	}
}

// noErrors fails the test if the page logged an error.
func (tb *tab) noErrors(t testing.TB) {
	t.Helper()
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if len(tb.errors) > 0 {
		t.Errorf("%s: the page logged errors:\n%s", tb.name, strings.Join(tb.errors, "\n"))
	}
}

// shot saves the page for the docs when PUZZLED_WEB_SCREENSHOTS is set.
func (tb *tab) shot(t testing.TB, file string) {
	t.Helper()
	if tb.b.docs != "" {
		tb.screenshot(filepath.Join(tb.b.docs, file))
	}
}

func (tb *tab) screenshot(path string) {
	ctx, cancel := context.WithTimeout(tb.ctx, 20*time.Second)
	defer cancel()
	var png []byte
	if err := chromedp.Run(ctx, chromedp.CaptureScreenshot(&png)); err != nil {
		tb.b.t.Logf("screenshot %s: %v", path, err)
		return
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		tb.b.t.Logf("screenshot %s: %v", path, err)
	}
}

// attr reads one attribute of the single element matching sel.
func (tb *tab) attr(t testing.TB, sel, name string) string {
	t.Helper()
	var v string
	var ok bool
	tb.run(t, chromedp.AttributeValue(sel, name, &v, &ok, chromedp.ByQuery))
	if !ok {
		t.Fatalf("%s: %s has no %s", tb.name, sel, name)
	}
	return v
}

// count evaluates how many elements match sel.
func (tb *tab) count(t testing.TB, sel string) int {
	t.Helper()
	var n int
	tb.run(t, chromedp.Evaluate(fmt.Sprintf("document.querySelectorAll(%q).length", sel), &n))
	return n
}

// shown waits until sel is in the page and laid out: chromedp's
// WaitVisible asked of the page itself, found and measured in one step.
// The pages that poll redraw their parts, and WaitVisible once waited out
// its 90 s on a row that the API showed delivered within the first second
// (a loaded CI run: WaitVisible keeps a node it found, and waits for it in
// chromedp's copy of the DOM, which a redraw can leave behind). A page
// that navigates meanwhile is asked again (chromedp.Poll would fail).
func shown(sel string) chromedp.Action {
	js := fmt.Sprintf(`(() => { const e = document.querySelector(%q);
		return !!e && e.getClientRects().length > 0; })()`, sel)
	return chromedp.ActionFunc(func(ctx context.Context) error {
		var err error
		for {
			var ok bool
			if err = chromedp.Evaluate(js, &ok).Do(ctx); err == nil && ok {
				return nil
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("%s not shown: %w (last evaluation: %v)", sel, ctx.Err(), err)
			case <-time.After(50 * time.Millisecond):
			}
		}
	})
}

// clickNow clicks sel once it is there, found and clicked in one step: for
// the parts of a page that it redraws while it polls (see text), where
// chromedp.Click's node can be gone between finding and clicking it.
func clickNow(sel string) chromedp.Action {
	var clicked bool
	return chromedp.Poll(fmt.Sprintf(`(() => { const e = document.querySelector(%q);
		if (!e || e.getClientRects().length === 0) return false; e.click(); return true; })()`, sel), &clicked, polling...)
}

// text is the visible text of sel, once sel is there and shown. It is
// found and read in one step: the pages that poll redraw their parts, and
// a node found in one call may be gone by the next ("No node with given
// id found", seen on a loaded CI machine).
func (tb *tab) text(t testing.TB, sel string) string {
	t.Helper()
	var got struct {
		Text string `json:"text"`
	}
	js := fmt.Sprintf(`(() => { const e = document.querySelector(%q);
		return e && e.getClientRects().length > 0 ? {text: e.innerText} : null; })()`, sel)
	tb.run(t, chromedp.Poll(js, &got, polling...))
	return got.Text
}
