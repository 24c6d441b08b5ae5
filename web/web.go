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
//	/ui/jobs              every job, filtered by label, kind, verdict, state, batch, time
//	/ui/jobs/{id}?step=K  a job: its level drawn as the player sees it, its plan
//	                      replayed, why it is not solved, play from any step
//	/ui/levels            every level with its newest definitive result
//	/ui/levels/{hash}     one level: its JSON, every run, play it
//	/ui/edit?level=HASH   edit a copy of a level, re-checked live
//	/ui/submit            paste or drop levels, then follow the job or batch
//
// The pages draw what the API computes: the states of GET
// /v1/jobs/{id}/replay and POST /v1/play (the kind's simulator) and the
// checks of POST /v1/levels/validate (the kind's parser); no page
// implements a rule of any kind. The board element carries the canonical
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
		case isShellPage(p):
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Cache-Control", "no-cache")
			_, _ = w.Write(shell)
		default:
			http.NotFound(w, r)
		}
	})
}

// isShellPage reports whether p is one of the pages: every one is the
// same shell, app.js picks the page.
func isShellPage(p string) bool {
	switch p {
	case "/ui/", "/ui/submit", "/ui/jobs", "/ui/levels", "/ui/edit", "/ui/generate":
		return true
	}
	return isPage(p, "/ui/batches/") || isPage(p, "/ui/jobs/") || isHashPage(p, "/ui/levels/") || isPage(p, "/ui/generations/")
}

// isHashPage reports whether p is prefix followed by a level hash (64
// lowercase hex digits).
func isHashPage(p, prefix string) bool {
	h, ok := strings.CutPrefix(p, prefix)
	if !ok || len(h) != 64 {
		return false
	}
	for _, c := range h {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
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
