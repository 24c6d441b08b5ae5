package api

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
)

// readAllLimited reads the body, failing beyond limit bytes (early when
// Content-Length says so).
func readAllLimited(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, &http.MaxBytesError{Limit: limit}
	}
	return io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
}

// formatBytes writes a byte limit the way people say it: "64 MiB".
func formatBytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// pathID reads the {id} path value; an id that is not a positive integer
// names nothing, so it answers 404 itself and reports false.
func pathID(w http.ResponseWriter, r *http.Request) (int64, bool) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		writeError(w, http.StatusNotFound, fmt.Sprintf("id %q is not a positive integer", r.PathValue("id")), "id")
		return 0, false
	}
	return id, true
}

// readBody reads at most limit bytes, answering 413 beyond that.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, bool) {
	body, err := readAllLimited(w, r, limit)
	if err == nil {
		return body, true
	}
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		writeError(w, http.StatusRequestEntityTooLarge,
			"request body over the limit of "+formatBytes(tooBig.Limit), "")
		return nil, false
	}
	writeError(w, http.StatusBadRequest, "reading body: "+err.Error(), "")
	return nil, false
}
