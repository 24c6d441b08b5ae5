package web_test

import (
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/puzzled/puzzled/solver/kinds"
	"github.com/puzzled/puzzled/web"
)

// TestHandler: which addresses are pages, assets, redirects or 404, and
// that every answer forbids loading from another host.
func TestHandler(t *testing.T) {
	t.Parallel()
	h := web.Handler()
	cases := []struct {
		method, path string
		code         int
		contentType  string
	}{
		{"GET", "/", http.StatusFound, ""},
		{"GET", "/ui", http.StatusFound, ""},
		{"GET", "/ui/", 200, "text/html"},
		{"GET", "/ui/submit", 200, "text/html"},
		{"GET", "/ui/batches/12", 200, "text/html"},
		{"GET", "/ui/jobs/7", 200, "text/html"},
		{"GET", "/ui/jobs", 200, "text/html"},
		{"GET", "/ui/levels", 200, "text/html"},
		{"GET", "/ui/edit", 200, "text/html"},
		{"GET", "/ui/levels/" + strings.Repeat("ab", 32), 200, "text/html"},
		{"GET", "/ui/levels/" + strings.Repeat("AB", 32), 404, ""},
		{"GET", "/ui/levels/abc", 404, ""},
		{"HEAD", "/ui/jobs/7", 200, "text/html"},
		{"GET", "/ui/jobs/", 404, ""},
		{"GET", "/ui/jobs/7x", 404, ""},
		{"GET", "/ui/jobs/12345678901234567890", 404, ""},
		{"GET", "/ui/nope", 404, ""},
		{"GET", "/favicon.ico", 404, ""},
		{"GET", "/ui/assets/app.js", 200, "text/javascript"},
		{"GET", "/ui/assets/style.css", 200, "text/css"},
		{"GET", "/ui/assets/missing.js", 404, ""},
		{"GET", "/ui/assets/", 404, ""},
		{"POST", "/ui/", http.StatusMethodNotAllowed, ""},
	}
	for _, tc := range cases {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(tc.method, tc.path, nil))
		if rec.Code != tc.code || !strings.HasPrefix(rec.Header().Get("Content-Type"), tc.contentType) {
			t.Errorf("%s %s: %d %q, want %d %q", tc.method, tc.path, rec.Code, rec.Header().Get("Content-Type"), tc.code, tc.contentType)
		}
		if tc.code != http.StatusMethodNotAllowed && !strings.Contains(rec.Header().Get("Content-Security-Policy"), "default-src 'self'") {
			t.Errorf("%s %s: no same-origin CSP", tc.method, tc.path)
		}
	}
}

// TestPagesLoadNothingFromElsewhere: no asset names another host.
func TestPagesLoadNothingFromElsewhere(t *testing.T) {
	t.Parallel()
	h := web.Handler()
	paths := []string{"/ui/"}
	if err := fs.WalkDir(os.DirFS("static"), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && p != "index.html" { // index.html is the shell, /ui/
			paths = append(paths, "/ui/assets/"+p)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if len(paths) < 18 {
		t.Fatalf("assets: %v", paths)
	}
	for _, p := range paths {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", p, nil))
		if rec.Code != 200 {
			t.Fatalf("%s: %d", p, rec.Code)
		}
		if body := rec.Body.String(); strings.Contains(body, "http://") || strings.Contains(body, "https://") || strings.Contains(body, "//cdn") {
			t.Errorf("%s names another host", p)
		}
	}
}

// TestEveryKindHasARenderer: each registered kind draws its states, edits
// a copy of a level and offers its moves to play with a module of its own,
// static/kinds/<kind>.js (draw.js finds it by the kind's name), which
// exports draw, describe, editor and playControls.
func TestEveryKindHasARenderer(t *testing.T) {
	t.Parallel()
	h := web.Handler()
	for _, kind := range kinds.Registry().Names() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/ui/assets/kinds/"+kind+".js", nil))
		body := rec.Body.String()
		if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/javascript") {
			t.Errorf("kind %s: /ui/assets/kinds/%s.js answers %d %q", kind, kind, rec.Code, rec.Header().Get("Content-Type"))
			continue
		}
		for _, fn := range []string{"export function draw(", "export function describe(", "export function editor(", "export function playControls("} {
			if !strings.Contains(body, fn) {
				t.Errorf("kinds/%s.js has no %s…)", kind, fn)
			}
		}
	}
}
