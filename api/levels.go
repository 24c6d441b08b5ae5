package api

import (
	"net/http"
	"regexp"
)

var hexHash = regexp.MustCompile(`^[0-9a-f]{64}$`)

func (s *Server) getLevel(w http.ResponseWriter, r *http.Request) {
	hash := r.PathValue("hash")
	if !hexHash.MatchString(hash) {
		writeError(w, http.StatusNotFound, "a level hash is 64 lowercase hex digits (SHA-256 of the canonical level)", "hash")
		return
	}
	lr, err := s.cfg.Store.GetLevel(r.Context(), hash, principalOf(r.Context()).readable())
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toWireLevel(lr))
}
