package api

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/puzzled/puzzled/api/wire"
	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/store"
)

// Lists: GET /v1/jobs, /v1/batches, /v1/levels, /v1/levels/{hash}/results.
// A page is {"items":[…],"next_cursor":"…"}, newest first, streamed from the
// database as rows arrive; next_cursor is absent on the last page. The
// cursor is opaque to clients (base64 of the last row's sort key).

// defaultListLimit is a page's size when the request names none.
const defaultListLimit = 100

// listQuery reads and validates a list's query parameters. Each read marks
// its parameter known; done reports the first problem, or an unknown one.
type listQuery struct {
	q     url.Values
	known map[string]bool
	field string // first bad parameter
	msg   string
}

func newListQuery(r *http.Request) *listQuery {
	return &listQuery{q: r.URL.Query(), known: map[string]bool{}}
}

func (l *listQuery) fail(field, msg string) {
	if l.field == "" {
		l.field, l.msg = field, field+": "+msg
	}
}

func (l *listQuery) get(name string) string {
	l.known[name] = true
	return l.q.Get(name)
}

// oneOf reads a parameter that must be one of allowed (or absent).
func (l *listQuery) oneOf(name string, allowed []string) string {
	v := l.get(name)
	if v != "" && !slices.Contains(allowed, v) {
		l.fail(name, fmt.Sprintf("must be one of %s", strings.Join(allowed, ", ")))
	}
	return v
}

func (l *listQuery) id(name string) int64 {
	v := l.get(name)
	if v == "" {
		return 0
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		l.fail(name, "must be a positive integer")
	}
	return n
}

func (l *listQuery) hash(name string) string {
	v := l.get(name)
	if v != "" && !hexHash.MatchString(v) {
		l.fail(name, "must be a level hash: 64 lowercase hex digits")
	}
	return v
}

// labels reads the repeatable label=key:value parameter.
func (l *listQuery) labels() []store.Label {
	l.known["label"] = true
	var out []store.Label
	for _, v := range l.q["label"] {
		k, val, ok := strings.Cut(v, ":")
		if !ok || k == "" {
			l.fail("label", fmt.Sprintf("%q is not key:value", v))
			continue
		}
		out = append(out, store.Label{Key: k, Value: val})
	}
	return out
}

// time reads an RFC 3339 time or a date (YYYY-MM-DD, UTC midnight).
func (l *listQuery) time(name string) time.Time {
	v := l.get(name)
	if v == "" {
		return time.Time{}
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t
	}
	if t, err := time.Parse(time.DateOnly, v); err == nil {
		return t
	}
	l.fail(name, "must be an RFC 3339 time (2026-01-31T12:00:00Z) or a date (2026-01-31)")
	return time.Time{}
}

func (l *listQuery) limit() int {
	v := l.get("limit")
	if v == "" {
		return defaultListLimit
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > wire.MaxListLimit {
		l.fail("limit", fmt.Sprintf("must be between 1 and %d", wire.MaxListLimit))
	}
	return n
}

// cursor reads the opaque cursor: base64url of "<unix µs>.<id or hash>".
func (l *listQuery) cursor(byHash bool) *store.Position {
	v := l.get("cursor")
	if v == "" {
		return nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(v)
	at, key, ok := strings.Cut(string(raw), ".")
	us, terr := strconv.ParseInt(at, 10, 64)
	p := &store.Position{At: time.UnixMicro(us).UTC(), Key: key}
	if !byHash {
		p.ID, err = strconv.ParseInt(key, 10, 64)
	}
	if err != nil || !ok || terr != nil || (byHash && !hexHash.MatchString(key)) {
		l.fail("cursor", "not a cursor of this list (pass next_cursor as it was given)")
		return nil
	}
	return p
}

// listScope reads ?project=NAME, which narrows a list to one project the
// caller reads, and returns the projects the list shows: that one, or
// every project the caller reads (nil: all). A project it cannot read is
// one that does not exist: the list is empty.
func (s *Server) listScope(l *listQuery, r *http.Request) []int64 {
	p := principalOf(r.Context())
	name := l.get("project")
	if name == "" {
		return p.readable()
	}
	pr, err := s.cfg.Store.ProjectByName(r.Context(), name)
	if err != nil || p.role(pr.ID) < roleRead {
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			l.fail("project", "could not be read: "+err.Error())
		}
		return []int64{}
	}
	return []int64{pr.ID}
}

// done answers 400 for the first bad or unknown parameter.
func (l *listQuery) done(w http.ResponseWriter) bool {
	for name := range l.q {
		if !l.known[name] {
			l.fail(name, "unknown parameter")
		}
	}
	if l.field != "" {
		writeError(w, http.StatusBadRequest, l.msg, l.field)
		return false
	}
	return true
}

func encodeCursor(p store.Position) string {
	key := p.Key
	if key == "" {
		key = strconv.FormatInt(p.ID, 10)
	}
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(p.At.UnixMicro(), 10) + "." + key))
}

var (
	jobStates = []string{string(jobtype.Queued), string(jobtype.Running), string(jobtype.Done), string(jobtype.Failed), string(jobtype.Canceled)}
	verdicts  = []string{string(solver.Solved), string(solver.Unsolvable), string(solver.Unknown)}
)

func (s *Server) listJobs(w http.ResponseWriter, r *http.Request) {
	q := newListQuery(r)
	f := store.JobFilter{Projects: s.listScope(q, r),
		BatchID: q.id("batch"), Kind: q.oneOf("kind", s.cfg.Registry.Names()), State: jobtype.State(q.oneOf("state", jobStates)),
		Verdict: q.oneOf("verdict", verdicts), LevelHash: q.hash("level"), Labels: q.labels(),
		Since: q.time("since"), Until: q.time("until"), After: q.cursor(false), Limit: q.limit(),
	}
	if !q.done(w) {
		return
	}
	limit := f.Limit
	f.Limit++ // one more row says whether there is a next page
	streamPage(s, w, r, limit, func(j wire.JobListItem) store.Position {
		return store.Position{At: j.CreatedAt, ID: j.ID}
	}, func(fn func(wire.JobListItem) error) error {
		return s.cfg.Store.ListJobs(r.Context(), f, func(j store.JobListItem) error { return fn(toWireJobListItem(j)) })
	})
}

func (s *Server) listBatches(w http.ResponseWriter, r *http.Request) {
	q := newListQuery(r)
	f := store.BatchFilter{Projects: s.listScope(q, r), Labels: q.labels(), Since: q.time("since"), Until: q.time("until"),
		After: q.cursor(false), Limit: q.limit()}
	if !q.done(w) {
		return
	}
	limit := f.Limit
	f.Limit++
	streamPage(s, w, r, limit, func(b wire.BatchListItem) store.Position {
		return store.Position{At: b.CreatedAt, ID: b.ID}
	}, func(fn func(wire.BatchListItem) error) error {
		return s.cfg.Store.ListBatches(r.Context(), f, func(b store.BatchListItem) error { return fn(toWireBatchListItem(b)) })
	})
}

func (s *Server) listLevels(w http.ResponseWriter, r *http.Request) {
	q := newListQuery(r)
	f := store.LevelFilter{Projects: s.listScope(q, r), Kind: q.oneOf("kind", s.cfg.Registry.Names()),
		Verdict: q.oneOf("verdict", []string{string(solver.Solved), string(solver.Unsolvable)}),
		Labels:  q.labels(), After: q.cursor(true), Limit: q.limit()}
	if !q.done(w) {
		return
	}
	limit := f.Limit
	f.Limit++
	streamPage(s, w, r, limit, func(l wire.LevelListItem) store.Position {
		return store.Position{At: l.CreatedAt, Key: l.Hash}
	}, func(fn func(wire.LevelListItem) error) error {
		return s.cfg.Store.ListLevels(r.Context(), f, func(l store.LevelListItem) error { return fn(toWireLevelListItem(l)) })
	})
}

func (s *Server) levelResults(w http.ResponseWriter, r *http.Request) {
	hash := r.PathValue("hash")
	if !hexHash.MatchString(hash) {
		writeError(w, http.StatusNotFound, "a level hash is 64 lowercase hex digits (SHA-256 of the canonical level)", "hash")
		return
	}
	q := newListQuery(r)
	after, limit := q.cursor(false), q.limit()
	if !q.done(w) {
		return
	}
	streamPage(s, w, r, limit, func(it wire.LevelResultItem) store.Position {
		return store.Position{At: it.CreatedAt, ID: it.JobID}
	}, func(fn func(wire.LevelResultItem) error) error {
		return s.cfg.Store.LevelResults(r.Context(), hash, principalOf(r.Context()).readable(), after, limit+1, func(it store.LevelResultItem) error {
			return fn(wire.LevelResultItem{JobID: it.JobID, Result: *toWireResult(&it.Result)})
		})
	})
}

// streamPage writes {"items":[…],"next_cursor":…} while run produces rows:
// at most limit items; a row beyond them means there is a next page,
// which starts after the last item written. An error before the first
// byte is answered as usual; after it, the connection is aborted so the
// client sees a truncated body, never a short page that looks complete.
func streamPage[T any](s *Server, w http.ResponseWriter, r *http.Request, limit int, pos func(T) store.Position,
	run func(fn func(T) error) error) {
	n := 0
	var last T
	more := false
	start := func() {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(`{"items":[`))
	}
	err := run(func(item T) error {
		if n == limit {
			more = true
			return nil
		}
		if n == 0 {
			start()
		} else {
			_, _ = w.Write([]byte(","))
		}
		b, err := json.Marshal(item)
		if err != nil {
			return err
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
		n++
		last = item
		return nil
	})
	if err != nil {
		if n == 0 {
			s.writeStoreError(w, r, err)
			return
		}
		panic(http.ErrAbortHandler)
	}
	if n == 0 {
		start()
	}
	tail := `]`
	if more {
		tail += `,"next_cursor":"` + encodeCursor(pos(last)) + `"`
	}
	_, _ = w.Write([]byte(tail + "}\n"))
}
