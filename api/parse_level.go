package api

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/store"
)

// storedLevel returns a parsed level as it is stored, canonical JSON and
// its SHA-256, and its kind.
func (s *Server) storedLevel(lvl solver.Level) (store.Level, solver.Kind) {
	canon := lvl.Canonical()
	sum := sha256.Sum256(canon)
	return store.Level{Hash: hex.EncodeToString(sum[:]), Kind: lvl.Kind(), Body: canon}, s.cfg.Registry.KindOf(lvl)
}
