package api

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/puzzled/puzzled/api/wire"
	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/store"
)

// The options of POST /v1/batches (a jobtype.Options, for every job of the
// batch) are the fields of the object form {"levels": […], "priority": …,
// "budget": …, "difficulty": …, "labels": …}, or query parameters
// (?priority=…&max_ms=…&max_nodes=…&playouts=…) with a bare JSON array of
// levels or NDJSON (one level per line). The levels themselves are
// streamed (batchDecoder), never held together.

// maxListedErrors caps how many bad levels a 400 lists.
const maxListedErrors = 100

func (s *Server) createBatch(w http.ResponseWriter, r *http.Request) {
	if !acceptContentType(w, r, mediaJSON, mediaNDJSON) {
		return
	}
	limit := s.cfg.Limits.BatchBody
	if r.ContentLength > limit {
		writeTooLarge(w, limit)
		return
	}
	if !s.uploads.tryAcquire() {
		writeBusy(w, cap(s.uploads))
		return
	}
	defer s.uploads.release()
	body := newSlowGuard(w, http.MaxBytesReader(w, r.Body, limit), s.cfg.Limits)
	query, err := queryOptions(r)
	if err != nil {
		writeLevelError(w, err)
		return
	}
	dec, err := newBatchDecoder(s.cfg.Registry, body, strings.Contains(r.Header.Get("Content-Type"), "ndjson"), s.cfg.Limits.JobBody)
	if err != nil {
		writeBatchError(w, err)
		return
	}
	start := time.Now()
	stream := &levelStream{s: s, r: r, dec: dec, versions: map[string]string{}}
	id, err := s.cfg.Store.CreateBatch(r.Context(), store.BatchParams{
		Stream:      stream,
		Finish:      stream.finish(query),
		MaxAttempts: s.cfg.Limits.MaxAttempts,
	})
	switch {
	case err == nil:
	case stream.nbad > 0 && stream.err == nil:
		writeJSON(w, http.StatusBadRequest, errorBody{
			Error:  fmt.Sprintf("%d of %d levels are invalid; the batch was not stored", stream.nbad, stream.n),
			Errors: stream.bad,
		})
		return
	case stream.err != nil:
		writeBatchError(w, stream.err)
		return
	default:
		s.writeStoreError(w, r, err)
		return
	}
	s.cfg.Logger.Info("batch stored", slog.Int64("batch_id", id), slog.Int("levels", stream.n),
		slog.Duration("took", time.Since(start)))
	// In parallel: the notice is best effort, and the answer must not
	// wait on a Redis out of reach.
	go func(ctx context.Context) {
		if err := s.cfg.Queue.NotifyBatch(ctx); err != nil {
			s.cfg.Logger.Debug("dispatchers not told of the batch", slog.Any("error", err))
		}
	}(context.WithoutCancel(r.Context()))
	s.audit(r, &stream.project, "batch.create", strconv.FormatInt(id, 10), map[string]any{"total": stream.n})
	writeJSON(w, http.StatusAccepted, map[string]any{"id": id, "total": stream.n})
}

// splitBatchItem splits an item of a batch into its level and the job's
// own labels. An item is a level, or {"level": <level>, "labels": {…}}
// whose labels are added to the batch's (puzzlectl submit sends each
// file's name so): an object with "level" that the registry does not take
// for a level (solver.Registry.IsLevel). Levels without the word "level"
// skip the decoding.
func splitBatchItem(reg *solver.Registry, raw json.RawMessage) (level, labels json.RawMessage, err error) {
	if len(raw) == 0 || raw[0] != '{' || !bytes.Contains(raw, []byte(`"level"`)) {
		return raw, nil, nil
	}
	var head map[string]json.RawMessage
	if json.Unmarshal(raw, &head) != nil {
		return raw, nil, nil // the level's parser says what is wrong
	}
	level, ok := head["level"]
	if !ok || reg.IsLevel(head) {
		return raw, nil, nil
	}
	for key := range head {
		if key != "level" && key != "labels" {
			return nil, nil, &solver.FieldError{Field: key, Reason: `unknown field of an item {"level": …, "labels": …}`}
		}
	}
	labels = head["labels"]
	if field, reason := jobtype.CheckLabels(labels); field != "" {
		return nil, nil, &solver.FieldError{Field: field, Reason: reason}
	}
	if t := bytes.TrimSpace(labels); string(t) == "null" || string(t) == "{}" {
		labels = nil
	}
	return level, labels, nil
}

// errBadLevels aborts a batch after its last level when some were invalid.
var errBadLevels = errors.New("invalid levels")

// errTooManyLevels is a batch over Limits.BatchLevels.
type errTooManyLevels struct{ limit int }

func (e errTooManyLevels) Error() string {
	return fmt.Sprintf("batch over the limit of %d levels", e.limit)
}

// levelStream parses, canonicalises and hashes each level as the decoder
// yields it, for store.CreateBatch to COPY at once. After the first bad
// level it keeps reading, to count and list bad ones, but yields nothing
// more, and ends with errBadLevels.
type levelStream struct {
	s        *Server
	r        *http.Request // for its query options
	dec      *batchDecoder
	n        int // levels read
	bad      []levelError
	nbad     int
	versions map[string]string
	project  int64 // where the batch went (finish)
	err      error // what ended the stream early (other than bad levels), for the answer
}

func (l *levelStream) Next() (store.Level, error) {
	for {
		raw, err := l.dec.next()
		if errors.Is(err, io.EOF) {
			if l.nbad > 0 {
				return store.Level{}, errBadLevels
			}
			return store.Level{}, io.EOF
		}
		if err != nil {
			l.err = err
			return store.Level{}, err
		}
		if l.n == l.s.cfg.Limits.BatchLevels {
			l.err = errTooManyLevels{l.s.cfg.Limits.BatchLevels}
			return store.Level{}, l.err
		}
		i := l.n
		l.n++
		raw, labels, err := splitBatchItem(l.s.cfg.Registry, raw)
		if err != nil {
			l.addBad(i, err)
			continue
		}
		parsed, err := jobtype.Spec{Level: raw}.ParseLevel(l.s.cfg.Registry)
		if err != nil {
			l.addBad(i, err)
			continue
		}
		lvl, kind := l.s.storedLevel(parsed)
		lvl.Labels = labels
		if l.nbad > 0 {
			continue
		}
		l.versions[kind.Name()] = kind.Version()
		return lvl, nil
	}
}

func (l *levelStream) addBad(i int, err error) {
	l.nbad++
	if len(l.bad) == maxListedErrors {
		return
	}
	le := levelError{Index: i, Reason: err.Error()}
	var fe *solver.FieldError
	if errors.As(err, &fe) {
		le.Field, le.Reason = fe.Field, fe.Reason
	}
	l.bad = append(l.bad, le)
}

// finish checks the batch once its levels are in: at least one, options
// valid (from the object form, else from the query), and fills p.
func (l *levelStream) finish(query jobtype.Options) func(*store.BatchParams) error {
	return func(p *store.BatchParams) error {
		opts := query
		if l.dec.wrapper {
			if err := noQueryOptions(l.r); err != nil {
				l.err = err
				return err
			}
			opts = l.dec.opts
		}
		if l.n == 0 {
			l.err = &solver.FieldError{Field: "levels", Reason: "a batch needs at least one level"}
			return l.err
		}
		if err := opts.Normalize(jobtype.InBatch); err != nil {
			l.err = err
			return l.err
		}
		project, err := l.s.requestProject(l.r, opts.Project, roleSubmit)
		var refused *scopeError
		if errors.As(err, &refused) {
			l.err = err
		}
		if err != nil {
			return err // a database error is answered as one (l.err unset)
		}
		p.Project, l.project = project, project
		hooks, err := l.s.callbackWebhooks(l.r.Context(), opts.Callbacks, true)
		if err != nil {
			l.err = err
			return err
		}
		p.Webhooks = hooks
		p.Priority, p.Budget, p.Labels, p.Versions = opts.Priority, opts.Budget, opts.Labels, l.versions
		p.Playouts = opts.Playouts()
		return nil
	}
}

// writeBatchError answers an upload that ended early: 413 over a size
// limit, 408 too slow, 400 for bad input.
func writeBatchError(w http.ResponseWriter, err error) {
	var tooBig *http.MaxBytesError
	var tooLarge errLevelTooLarge
	var tooMany errTooManyLevels
	var scope *scopeError
	switch {
	case errors.As(err, &scope):
		writeScopeError(w, scope)
	case errors.As(err, &tooBig):
		writeTooLarge(w, tooBig.Limit)
	case errors.As(err, &tooLarge):
		writeError(w, http.StatusRequestEntityTooLarge, tooLarge.Error(), "levels")
	case errors.As(err, &tooMany):
		writeError(w, http.StatusRequestEntityTooLarge, tooMany.Error(), "levels")
	case errors.Is(err, errTooSlow):
		w.Header().Set("Connection", "close")
		writeError(w, http.StatusRequestTimeout, err.Error(), "")
	default:
		writeLevelError(w, err)
	}
}

// queryOptions reads the options of the array and NDJSON forms.
func queryOptions(r *http.Request) (jobtype.Options, error) {
	var req jobtype.Options
	q := r.URL.Query()
	req.Priority = jobtype.Priority(q.Get("priority"))
	var playouts int64
	for name, dst := range map[string]*int64{"max_ms": &req.Budget.MaxMS, "max_nodes": &req.Budget.MaxNodes, "playouts": &playouts} {
		if v := q.Get(name); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return req, &solver.FieldError{Field: name, Reason: "must be an integer"}
			}
			*dst = n
		}
	}
	callbacks, err := callbacksFromQuery(r)
	if err != nil {
		return req, err
	}
	req.Callbacks = callbacks
	if q.Has("playouts") {
		// Clamped into int's range so that Options.Validate names the field.
		req.Difficulty = &jobtype.Difficulty{Playouts: int(max(min(playouts, math.MaxInt32), math.MinInt32))}
	}
	return req, nil
}

func (s *Server) getBatch(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r)
	if !ok {
		return
	}
	b, err := s.cfg.Store.GetBatch(r.Context(), id)
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	out := toWireBatch(b)
	out.Project = s.projectName(r.Context(), b.ProjectID)
	writeJSON(w, http.StatusOK, out)
}

// batchResults streams one NDJSON line per level, in submission order.
func (s *Server) batchResults(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r)
	if !ok {
		return
	}
	started := false
	var bw *bufio.Writer
	enc := json.NewEncoder(io.Discard)
	err := s.cfg.Store.BatchResults(r.Context(), id, func(br store.BatchResult) error {
		if !started {
			started = true
			w.Header().Set("Content-Type", "application/x-ndjson")
			w.WriteHeader(http.StatusOK)
			bw = bufio.NewWriterSize(w, 64<<10)
			enc = json.NewEncoder(bw)
		}
		return enc.Encode(toWireBatchResult(br))
	})
	if bw != nil {
		_ = bw.Flush()
	}
	if err != nil && !started {
		s.writeStoreError(w, r, err)
		return
	}
	if err != nil {
		// Headers are gone: end the stream so the client sees it truncated.
		panic(http.ErrAbortHandler)
	}
	if !started { // an empty batch cannot exist, but answer cleanly
		w.Header().Set("Content-Type", "application/x-ndjson")
		w.WriteHeader(http.StatusOK)
	}
}

func (s *Server) cancelBatch(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r)
	if !ok {
		return
	}
	ids, err := s.cfg.Store.CancelBatch(r.Context(), id)
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	for _, jid := range ids {
		_ = s.cfg.Queue.Cancel(jid) // best effort; workers also poll the state
	}
	s.auditResource(r, store.ResBatch, "batch.cancel", id, map[string]any{"canceled": len(ids)})
	writeJSON(w, http.StatusOK, wire.BatchCancel{ID: id, Canceled: len(ids)})
}
