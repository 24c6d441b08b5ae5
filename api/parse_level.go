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
	return s.parseLevelAs("", data)
}

// parseLevelAs is parseLevel for a caller that has read the level's kind
// already ("" when it has not): the registry then skips reading it again.
func (s *Server) parseLevelAs(kind string, data []byte) (store.Level, solver.Kind, error) {
	var lvl solver.Level
	var err error
	if kind == "" {
		lvl, err = s.cfg.Registry.Parse(data)
	} else {
		lvl, err = s.cfg.Registry.ParseAs(kind, data)
	}
	if err != nil {
		return store.Level{}, nil, err
	}
	canon := lvl.Canonical()
	sum := sha256.Sum256(canon)
	return store.Level{Hash: hex.EncodeToString(sum[:]), Kind: lvl.Kind(), Body: canon}, s.cfg.Registry.KindOf(lvl), nil
}
