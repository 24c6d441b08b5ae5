package api

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/puzzled/puzzled/store"
)

// StaticToken is an API token given in configuration (PUZZLED_API_TOKENS)
// rather than stored in the database.
type StaticToken struct {
	Name     string
	Token    string
	ReadOnly bool
}

// principal is who made a request: a token's name, or the client address
// when no token is configured (for rate limits), and what it may do
// (scope.go).
type principal struct {
	name string
	// owner is who owns what the caller creates (webhook secrets):
	// "token:<id>" for a stored token, "static:<name>" for a configured
	// one, "anonymous" when no token is needed. It is also the actor of
	// audit rows.
	owner string
	// operator: every project, as admin, and the projects and tokens
	// themselves (static tokens, stored tokens without projects, anyone
	// when no token is configured).
	operator bool
	// readAll: read on every project (read-only static or stored tokens
	// without projects).
	readAll bool
	// roles are a scoped token's roles by project id.
	roles map[int64]role
}

// kind says what a principal is, for messages: "token" or "client address".
func (p principal) kind() string {
	if strings.HasPrefix(p.name, "addr:") {
		return "client address"
	}
	return "token"
}

// authenticator checks bearer tokens: the configured static ones (compared
// in constant time by hash) and those stored hashed in PostgreSQL.
// Validated stored tokens are cached for tokenCacheTTL, or until a revoke
// anywhere makes every API process forget them (watchRevokes).
type authenticator struct {
	store  *store.Store
	static []staticHash
	// watch is called once, before the first stored token is looked up.
	watch    func()
	watching sync.Once

	mu    sync.Mutex
	cache map[[32]byte]cachedToken
	// gen counts forgets: a token read before one is not cached after it,
	// as it may be the revoked one.
	gen       uint64
	anyStored bool
	checkedAt time.Time
}

type staticHash struct {
	name     string
	hash     [32]byte
	readOnly bool
}

type cachedToken struct {
	p       principal
	expires time.Time
}

const tokenCacheTTL = 30 * time.Second

func newAuthenticator(st *store.Store, static []StaticToken) *authenticator {
	a := &authenticator{store: st, cache: map[[32]byte]cachedToken{}}
	for _, t := range static {
		a.static = append(a.static, staticHash{name: t.Name, hash: sha256.Sum256([]byte(t.Token)), readOnly: t.ReadOnly})
	}
	return a
}

// errNoToken and errBadToken answer 401.
var (
	errNoToken  = errors.New("missing bearer token: send Authorization: Bearer <token>")
	errBadToken = errors.New("invalid token")
)

// authenticate returns the request's principal. With no token configured
// anywhere every request is allowed, as the client's address.
func (a *authenticator) authenticate(r *http.Request) (principal, error) {
	anon := principal{name: "addr:" + clientHost(r), owner: "anonymous", operator: true}
	required, err := a.required(r.Context())
	if err != nil {
		return principal{}, err
	}
	if !required {
		return anon, nil
	}
	raw, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || raw == "" {
		return principal{}, errNoToken
	}
	sum := sha256.Sum256([]byte(strings.TrimSpace(raw)))
	found := -1
	for i, s := range a.static { // no early exit: constant time in the match
		if subtle.ConstantTimeCompare(sum[:], s.hash[:]) == 1 {
			found = i
		}
	}
	if found >= 0 {
		ro := a.static[found].readOnly
		return principal{name: "token:" + a.static[found].name, operator: !ro, readAll: ro,
			owner: "static:" + a.static[found].name}, nil
	}
	a.mu.Lock()
	c, ok := a.cache[sum]
	gen := a.gen
	a.mu.Unlock()
	if ok && time.Now().Before(c.expires) {
		return c.p, nil
	}
	if a.watch != nil {
		a.watching.Do(a.watch) // before the read: a revoke after it is heard
	}
	t, err := a.store.TokenByHash(r.Context(), sum[:])
	if errors.Is(err, store.ErrNotFound) {
		return principal{}, errBadToken
	}
	if err != nil {
		return principal{}, err
	}
	p := principalOfToken(t)
	a.mu.Lock()
	if a.gen == gen {
		a.cache[sum] = cachedToken{p: p, expires: time.Now().Add(tokenCacheTTL)}
	}
	a.mu.Unlock()
	return p, nil
}

// principalOfToken is what a stored token may do: a scoped token its
// roles, one without projects everything (read only if read-only).
func principalOfToken(t store.Token) principal {
	p := principal{name: "token:" + t.Name, owner: "token:" + strconv.FormatInt(t.ID, 10)}
	if !t.Scoped {
		p.operator, p.readAll = !t.ReadOnly, t.ReadOnly
		return p
	}
	p.roles = map[int64]role{}
	for project, name := range t.Roles {
		p.roles[project] = roleNamed(name)
	}
	return p
}

// forget drops the cached stored tokens, so that a revoked one is refused
// at once.
func (a *authenticator) forget() {
	a.mu.Lock()
	clear(a.cache)
	a.gen++
	a.mu.Unlock()
}

// watchRevokes makes this process forget its cached tokens whenever any
// process revokes one (store.RevokedTokenKey), and whenever the listener
// (re)connects, since a revoke may have passed unheard meanwhile. It runs
// from the first stored token looked up until Close, on the long-polls'
// listener (one connection per process, direct to PostgreSQL). While the
// listener is down, tokenCacheTTL still bounds how long a revoked token
// works.
func (s *Server) watchRevokes() {
	l := s.waiter.listener(s)
	if l == nil {
		return // shutting down
	}
	wake, unsubscribe := l.Subscribe(store.RevokedTokenKey)
	ready := l.Ready()
	select {
	case <-ready:
		ready = nil // listening already: every revoke from now on is heard
	default:
	}
	go func() {
		defer unsubscribe()
		for {
			select {
			case <-ready:
				ready = nil
				s.auth.forget() // tokens cached before the LISTEN began
			case <-wake:
				s.auth.forget()
			case <-s.waiter.closing:
				return
			}
		}
	}()
}

// required reports whether any token is configured; the stored side is
// re-checked at most every tokenCacheTTL.
func (a *authenticator) required(ctx context.Context) (bool, error) {
	if len(a.static) > 0 {
		return true, nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.anyStored || time.Since(a.checkedAt) < tokenCacheTTL {
		return a.anyStored, nil
	}
	any, err := a.store.HasTokens(ctx)
	if err != nil {
		return false, err
	}
	a.anyStored, a.checkedAt = any, time.Now()
	return any, nil
}

func clientHost(r *http.Request) string {
	host := r.RemoteAddr
	if i := strings.LastIndexByte(host, ':'); i > 0 {
		host = host[:i]
	}
	return host
}

// HashToken is how tokens are stored: their SHA-256.
func HashToken(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

// ParseTokens reads a token list as PUZZLED_API_TOKENS and
// PUZZLED_API_READONLY_TOKENS give it: comma-separated entries, each either
// "name:token", split at the first colon (so the token may contain colons,
// the name may not), or a bare token without a colon (named env-N, N its
// position). A bare token that contains a colon is written with an empty
// name: ":tok:en". Spaces around entries are ignored; an empty token is an
// error.
func ParseTokens(list string, readOnly bool) ([]StaticToken, error) {
	var out []StaticToken
	for i, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, token, named := strings.Cut(item, ":")
		if !named {
			token = item
		}
		if name == "" || !named {
			name = "env-" + strconv.Itoa(i+1)
		}
		if token == "" {
			return nil, fmt.Errorf("token entry %d (%q): empty token; write name:token, a bare token, or :token for a bare token containing ':'", i+1, name)
		}
		out = append(out, StaticToken{Name: name, Token: token, ReadOnly: readOnly})
	}
	return out, nil
}
