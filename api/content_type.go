package api

import (
	"mime"
	"net/http"
	"slices"
	"strings"

	"github.com/puzzled/puzzled/solver"
)

// Media types the POST routes accept.
const (
	mediaJSON   = "application/json"
	mediaNDJSON = "application/x-ndjson"
)

// acceptContentType answers 415 unless the request's Content-Type is one
// of accepted (parameters such as charset aside). A request without one
// has no body: every POST route refuses a body without a Content-Type
// (refuseCrossSite), and the handler answers 400 for the missing level.
func acceptContentType(w http.ResponseWriter, r *http.Request, accepted ...string) bool {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return true
	}
	media, _, err := mime.ParseMediaType(ct)
	if err == nil && slices.Contains(accepted, media) {
		return true
	}
	// The body is not read: close the connection after the answer rather
	// than drain a body that may be large or slow.
	w.Header().Set("Connection", "close")
	writeError(w, http.StatusUnsupportedMediaType,
		"Content-Type "+ct+" is not accepted; send "+strings.Join(accepted, " or "), "Content-Type")
	return false
}

// batchQueryOptions are the query parameters that carry a batch's options
// for the array and NDJSON forms.
var batchQueryOptions = []string{"priority", "max_ms", "max_nodes", "playouts", "callback", "callback_job_events"}

// noQueryOptions rejects query options on a batch in the object form,
// whose options live in the body: silently dropping ?priority= would run
// the batch with options the client did not ask for.
func noQueryOptions(r *http.Request) error {
	q := r.URL.Query()
	for _, name := range batchQueryOptions {
		if q.Has(name) {
			return &solver.FieldError{Field: name,
				Reason: "a query option cannot go with a {\"levels\": …} body; put it in the body"}
		}
	}
	return nil
}
