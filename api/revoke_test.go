package api_test

import (
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/puzzled/puzzled/api"
	"github.com/puzzled/puzzled/internal/contracttest"
	"github.com/puzzled/puzzled/internal/waittest"
	"github.com/puzzled/puzzled/queue"
	"github.com/puzzled/puzzled/solver/kinds"
	"github.com/puzzled/puzzled/store"
)

// peer runs a second API on f's database and Redis, as another API
// process would: its own pool, token cache and listener.
func (f *fixture) peer(t *testing.T, cfg api.Config) string {
	t.Helper()
	st, err := store.Open(t.Context(), f.db, store.OpenOpts{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	qc := queue.NewClient(f.redis)
	t.Cleanup(func() { qc.Close() })
	cfg.Store, cfg.Queue, cfg.Registry = st, qc, kinds.Registry()
	srv := api.New(cfg)
	t.Cleanup(srv.Close)
	hs := httptest.NewServer(contracttest.Handler(t, srv))
	t.Cleanup(hs.Close)
	return hs.URL
}

// A token revoked through one API process is refused by another at once,
// not when the other's cache of validated tokens expires (30 s).
func TestRevokeReachesEveryProcess(t *testing.T) {
	t.Parallel()
	ops := []api.StaticToken{{Name: "ops", Token: "op-secret"}}
	a := setup(t, api.Config{Tokens: ops}, false)
	b := a.peer(t, api.Config{Tokens: ops})
	st, body := request(t, "POST", a.url+"/v1/projects", "op-secret", `{"name":"alpha"}`)
	mustJSON(t, st, body, 201, nil)
	newToken := func(name string) (int64, string) {
		var tok struct {
			ID    int64
			Token string
		}
		st, body := request(t, "POST", a.url+"/v1/tokens", "op-secret",
			`{"name":"`+name+`","projects":[{"project":"alpha","role":"read"}]}`)
		mustJSON(t, st, body, 201, &tok)
		return tok.ID, tok.Token
	}
	status := func(url, token string) int {
		st, _ := request(t, "GET", url+"/v1/projects", token, "")
		return st
	}

	// First wait until b listens. Its first stored token starts its
	// listener, which forgets the tokens cached before it listened; so a
	// token revoked behind b's back (no notification) is refused once b
	// listens, and after that b forgets only when told.
	sentinelID, sentinel := newToken("sentinel")
	if got := status(b, sentinel); got != 200 {
		t.Fatalf("sentinel on b: %d, want 200", got)
	}
	conn, err := pgx.Connect(t.Context(), a.db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	if _, err := conn.Exec(t.Context(), `UPDATE api_tokens SET revoked_at = now() WHERE id = $1`, sentinelID); err != nil {
		t.Fatal(err)
	}
	waittest.WaitFor(t, 30*time.Second, "b to listen", func() bool { return status(b, sentinel) == 401 })

	id, secret := newToken("victim")
	if got := status(b, secret); got != 200 {
		t.Fatalf("token on b: %d, want 200", got)
	}
	st, body = request(t, "DELETE", a.url+"/v1/tokens/"+strconv.FormatInt(id, 10), "op-secret", "")
	mustJSON(t, st, body, 200, nil)
	if got := status(a.url, secret); got != 401 {
		t.Fatalf("revoked token on a: %d, want 401", got)
	}
	waittest.WaitFor(t, 30*time.Second, "b to refuse the revoked token", func() bool { return status(b, secret) == 401 })
}
