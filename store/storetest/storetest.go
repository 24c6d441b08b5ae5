// Package storetest builds what tests and benchmarks need in the database
// apart from the service's own writes: a synthetic history of a million
// jobs written with COPY ([Seed]) for the list benchmark and the
// query-plan tests, and stored levels ([Level]) for tests that create jobs
// through the store. It is test support (like pgx's pgxtest and River's
// testfactory): tests and `puzzled bench-query` link it, the service
// never does (internal/archtest checks).
package storetest

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/puzzled/puzzled/store"
)

// Level is body as the store keeps a level of kind: body should be the
// level's canonical JSON, and the hash is its SHA-256, as the API computes
// it.
func Level(kind string, body []byte) store.Level {
	sum := sha256.Sum256(body)
	return store.Level{Hash: hex.EncodeToString(sum[:]), Kind: kind, Body: body}
}
