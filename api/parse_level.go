package api

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/store"
)

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
