package api

import (
	"mime"
	"net/http"
	"net/url"
	"strings"
)

// Cross-site requests. A page on another site can make a browser send a
// POST to this server without asking first: a form, or fetch with
// mode "no-cors", whose body has no Content-Type or a text/plain one. With
// auth off (the dev default) nothing else stands in the way, so every POST
// route refuses
//
//   - a body that is not declared as JSON or NDJSON (such a request cannot
//     be sent across sites without a CORS preflight, which this server
//     never grants), and
//   - a request whose Origin names another host, or whose Sec-Fetch-Site
//     says it comes from another site or origin,
//
// whether auth is on or off: the webhook routes too, since a page that
// could make a secret or a redelivery would act for the token's owner.
// Clients that are not browsers send neither header; a POST without a body
// (cancel, redeliver, a new webhook secret) needs no Content-Type. Other
// methods that change things (PATCH, DELETE) need a preflight across
// sites and are not checked here.

// apiHeaders are set on every /v1 answer: the body is never to be sniffed
// into another type, and no page may frame it.
func apiHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "frame-ancestors 'none'")
}

// refuseCrossSite answers 403 or 415 and returns true when a POST must be
// refused.
func refuseCrossSite(w http.ResponseWriter, r *http.Request) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
		writeError(w, http.StatusForbidden, "cross-site request refused: Sec-Fetch-Site is "+site+
			"; this API takes POSTs from its own pages and from clients that are not browsers", "Sec-Fetch-Site")
		return true
	}
	if origin := r.Header.Get("Origin"); origin != "" && !sameHost(origin, r.Host) {
		writeError(w, http.StatusForbidden, "cross-site request refused: Origin "+origin+" is not this server ("+r.Host+")", "Origin")
		return true
	}
	ct := r.Header.Get("Content-Type")
	if ct == "" && r.ContentLength == 0 {
		return false // no body to misread
	}
	if media, _, err := mime.ParseMediaType(ct); err == nil && (media == mediaJSON || media == mediaNDJSON) {
		return false
	}
	w.Header().Set("Connection", "close") // the body is not read
	msg := "a request body needs Content-Type application/json or application/x-ndjson"
	if ct != "" {
		msg = "Content-Type " + ct + " is not accepted; send application/json or application/x-ndjson"
	}
	writeError(w, http.StatusUnsupportedMediaType, msg, "Content-Type")
	return true
}

// sameHost reports whether origin (scheme://host[:port]) names host, the
// request's Host. The scheme is not compared: behind a proxy that ends
// TLS the server cannot tell it.
func sameHost(origin, host string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return false // includes "null", sent by sandboxed and file pages
	}
	return strings.EqualFold(u.Host, host)
}
