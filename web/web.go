// Package web is puzzled's workbench in the browser: plain HTML, CSS and
// JavaScript embedded in the binary and served at / and /ui/ by the same
// server as the API, so pages use the API's origin and tokens. Nothing is
// built with Node and nothing is loaded from another host: the Content
// Security Policy allows this origin only.
//
// Every /ui/ page is the same shell (static/index.html); static/app.js
// picks the page from the address:
//
//	/ui/                  batches: live progress, verdict counts, labels, filters
//	/ui/batches/{id}      a batch's report
//	/ui/jobs/{id}?step=K  a level drawn as the player sees it, its plan replayed
//	/ui/submit            paste or drop levels, then follow the job or batch
//
// The level page draws the states of GET /v1/jobs/{id}/replay, which the
// kind's simulator computes; its board element carries the canonical
// state text as data-state (docs/states.md).
package web

import (
	"embed"
	"io/fs"
	"net/http"
	"strings"
)

//go:embed static
var static embed.FS

// csp allows this origin only: no script, style, image or connection to
// another host.
const csp = "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"

// Handler serves the workbench: / redirects to /ui/, /ui/assets/ are the
// embedded files, every other /ui/ address is the page shell.
func Handler() http.Handler {
	assets, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // the embedded tree is fixed at build time
	}
	files := http.StripPrefix("/ui/assets/", http.FileServerFS(assets))
	shell, err := fs.ReadFile(assets, "index.html")
	if err != nil {
		panic(err)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Security-Policy", csp)
		w.Header().Set("X-Content-Type-Options", "nosniff")
		switch p := r.URL.Path; {
		case p == "/" || p == "/ui":
			http.Redirect(w, r, "/ui/", http.StatusFound)
		case strings.HasPrefix(p, "/ui/assets/") && !strings.HasSuffix(p, "/"): // files, no listings
			w.Header().Set("Cache-Control", "no-cache")
			files.ServeHTTP(w, r)
		case p == "/ui/" || p == "/ui/submit" || isPage(p, "/ui/batches/") || isPage(p, "/ui/jobs/") ||
			p == "/ui/generate" || isPage(p, "/ui/generations/"):
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Cache-Control", "no-cache")
			_, _ = w.Write(shell)
		default:
			http.NotFound(w, r)
		}
	})
}

// isPage reports whether p is prefix followed by a decimal id.
func isPage(p, prefix string) bool {
	id, ok := strings.CutPrefix(p, prefix)
	if !ok || id == "" || len(id) > 19 {
		return false
	}
	for _, c := range id {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
