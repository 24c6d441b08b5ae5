// Package migrations holds puzzled's PostgreSQL schema as goose SQL files,
// embedded into the binary; store.Migrate applies them.
package migrations

import "embed"

// FS holds the numbered goose migrations.
//
//go:embed *.sql
var FS embed.FS
