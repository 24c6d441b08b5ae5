package api

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/store"
)

func readAllLimited(w http.ResponseWriter, r *http.Request, limit int64, l Limits) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, &http.MaxBytesError{Limit: limit}
	}
	return io.ReadAll(newSlowGuard(w, http.MaxBytesReader(w, r.Body, limit), l))
}

func formatBytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// parseLevel validates one level and returns it as stored: canonical JSON
// and its SHA-256.
func (s *Server) parseLevel(data []byte) (store.Level, solver.Kind, error) {
	lvl, err := s.cfg.Registry.Parse(data)
	if err != nil {
		return store.Level{}, nil, err
	}
	canon := lvl.Canonical()
	sum := sha256.Sum256(canon)
	return store.Level{Hash: hex.EncodeToString(sum[:]), Kind: lvl.Kind(), Body: canon}, s.cfg.Registry.KindOf(lvl), nil
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
