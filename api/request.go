package api

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
)

// readAllLimited reads the body, failing beyond limit bytes (early when
// Content-Length says so) and when it comes too slowly (newSlowGuard).
func readAllLimited(w http.ResponseWriter, r *http.Request, limit int64, l Limits) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, &http.MaxBytesError{Limit: limit}
	}
	return io.ReadAll(newSlowGuard(w, http.MaxBytesReader(w, r.Body, limit), l))
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
// written as ids are ("7", not "+7" or "07") names nothing, so it answers
// 404 itself and reports false.
func pathID(w http.ResponseWriter, r *http.Request) (int64, bool) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 || strconv.FormatInt(id, 10) != r.PathValue("id") {
		writeError(w, http.StatusNotFound, fmt.Sprintf("id %q is not a positive integer", r.PathValue("id")), "id")
		return 0, false
	}
	return id, true
}

// readBody reads at most limit bytes, answering 413 beyond that and 408
// when the body comes too slowly.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, bool) {
	body, err := readAllLimited(w, r, limit, s.cfg.Limits)
	if err == nil {
		return body, true
	}
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		writeTooLarge(w, tooBig.Limit)
		return nil, false
	}
	if errors.Is(err, errTooSlow) {
		writeBatchError(w, err)
		return nil, false
	}
	writeError(w, http.StatusBadRequest, "reading body: "+err.Error(), "")
	return nil, false
}

// writeTooLarge answers 413 for a body over limit bytes.
func writeTooLarge(w http.ResponseWriter, limit int64) {
	writeError(w, http.StatusRequestEntityTooLarge, "request body over the limit of "+formatBytes(limit), "")
}
