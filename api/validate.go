package api

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"

	"github.com/puzzled/puzzled/api/wire"
	"github.com/puzzled/puzzled/solver"
)

// validateLevel is POST /v1/levels/validate: the kind's parser and linter
// on one bare level, nothing stored or solved. A level the parser refuses
// is an answer here (200, valid false, naming the field), not a failed
// request: the editor asks on every change, before any solve.
func (s *Server) validateLevel(w http.ResponseWriter, r *http.Request) {
	if !acceptContentType(w, r, mediaJSON) {
		return
	}
	body, ok := s.readBody(w, r, s.cfg.Limits.JobBody)
	if !ok {
		return
	}
	lvl, err := s.cfg.Registry.Parse(body)
	if err != nil {
		out := wire.Validation{Error: err.Error()}
		var fe *solver.FieldError
		if errors.As(err, &fe) {
			out.Field = fe.Field
		}
		writeJSON(w, http.StatusOK, out)
		return
	}
	canon := lvl.Canonical()
	sum := sha256.Sum256(canon)
	out := wire.Validation{Valid: true, Kind: lvl.Kind(), Hash: hex.EncodeToString(sum[:]), Level: canon}
	if l, ok := s.cfg.Registry.KindOf(lvl).(solver.Linter); ok {
		out.Warnings = l.Lint(lvl)
	}
	writeJSON(w, http.StatusOK, out)
}
