package main

import (
	"log/slog"
	"testing"

	"github.com/puzzled/puzzled/api"
	"github.com/puzzled/puzzled/internal/envtest"
	"github.com/puzzled/puzzled/store"
)

// createToken runs `puzzled token create` with args and returns the token
// it prints.
func createToken(t *testing.T, args ...string) (string, error) {
	t.Helper()
	return captureStdout(t, func() error { return runToken(t.Context(), append([]string{"create"}, args...)) })
}

// TestTokenCreateWithProjects: --project (repeatable) and --role make a
// scoped token; without them the token is an operator's, as before.
func TestTokenCreateWithProjects(t *testing.T) {
	db := envtest.PostgresURL(t)
	if err := store.Migrate(t.Context(), db, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(t.Context(), db, store.OpenOpts{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	studio, err := st.CreateProject(t.Context(), "studio")
	if err != nil {
		t.Fatal(err)
	}
	dbFlag := "--database-url=" + db

	tok, err := createToken(t, dbFlag, "--name", "artist", "--project", "studio", "--project", "default", "--role", "submit")
	if err != nil {
		t.Fatal(err)
	}
	got, err := st.TokenByHash(t.Context(), api.HashToken(tok))
	if err != nil {
		t.Fatal(err)
	}
	if !got.Scoped || len(got.Roles) != 2 || got.Roles[studio.ID] != "submit" || got.Roles[store.DefaultProject] != "submit" {
		t.Errorf("scoped token %+v, want submit on studio and default", got)
	}

	tok, err = createToken(t, dbFlag, "--name", "ops")
	if err != nil {
		t.Fatal(err)
	}
	if got, err = st.TokenByHash(t.Context(), api.HashToken(tok)); err != nil || got.Scoped || got.ReadOnly {
		t.Errorf("token without --project: %+v, %v; want an operator's", got, err)
	}

	for _, bad := range [][]string{
		{"--name", "x", "--project", "studio"},                                  // no role
		{"--name", "x", "--role", "read"},                                       // no project
		{"--name", "x", "--project", "studio", "--role", "owner"},               // no such role
		{"--name", "x", "--project", "studio", "--role", "read", "--read-only"}, // both
		{"--name", "x", "--project", "nowhere", "--role", "read"},               // no such project
	} {
		if _, err := createToken(t, append([]string{dbFlag}, bad...)...); err == nil {
			t.Errorf("token create %v: no error", bad)
		}
	}
}
