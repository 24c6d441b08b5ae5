package api

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/puzzled/puzzled/store"
)

func (s *Server) batchReport(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r)
	if !ok {
		return
	}
	rep, err := s.cfg.Store.BatchReport(r.Context(), id)
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toWireReport(rep))
}

// stats answers GET /v1/stats?since=…&until=… (RFC 3339; default: all time).
func (s *Server) stats(w http.ResponseWriter, r *http.Request) {
	since, until := time.Unix(0, 0).UTC(), time.Now().UTC().Add(time.Second)
	for name, dst := range map[string]*time.Time{"since": &since, "until": &until} {
		if v := r.URL.Query().Get(name); v != "" {
			t, err := time.Parse(time.RFC3339, v)
			if err != nil {
				writeError(w, http.StatusBadRequest, name+": must be an RFC 3339 time, e.g. 2026-11-29T00:00:00Z", name)
				return
			}
			*dst = t
		}
	}
	projects := principalOf(r.Context()).readable()
	if name := r.URL.Query().Get("project"); name != "" {
		pr, err := s.cfg.Store.ProjectByName(r.Context(), name)
		if (err == nil && principalOf(r.Context()).role(pr.ID) < roleRead) || errors.Is(err, store.ErrNotFound) {
			writeError(w, http.StatusNotFound, fmt.Sprintf("project %q: not found", name), "project")
			return
		}
		if err != nil {
			s.writeStoreError(w, r, err)
			return
		}
		projects = []int64{pr.ID}
	}
	st, err := s.cfg.Store.Stats(r.Context(), since, until, projects)
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toWireStats(st))
}
