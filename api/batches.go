package api

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/puzzled/puzzled/api/wire"
	"github.com/puzzled/puzzled/queue"
	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/store"
)

// batchRequest is the object form of POST /v1/batches. The body may also be
// a bare JSON array of levels or NDJSON (one level per line), with the
// options as query parameters (?priority=…&max_ms=…&max_nodes=…).
type batchRequest struct {
	Levels   []json.RawMessage `json:"levels"`
	Priority string            `json:"priority"`
	Budget   solver.Budget     `json:"budget"`
	Labels   json.RawMessage   `json:"labels"`
}

// maxListedErrors caps how many bad levels a 400 lists.
const maxListedErrors = 100

func (s *Server) createBatch(w http.ResponseWriter, r *http.Request) {
	if !acceptContentType(w, r, mediaJSON, mediaNDJSON) {
		return
	}
	body, ok := readBody(w, r, s.cfg.Limits.BatchBody)
	if !ok {
		return
	}
	req, err := decodeBatch(body, r)
	if err != nil {
		writeLevelError(w, err)
		return
	}
	if len(req.Levels) == 0 {
		writeError(w, http.StatusBadRequest, "a batch needs at least one level", "levels")
		return
	}
	if len(req.Levels) > s.cfg.Limits.BatchLevels {
		writeError(w, http.StatusRequestEntityTooLarge,
			fmt.Sprintf("batch of %d levels is over the limit of %d", len(req.Levels), s.cfg.Limits.BatchLevels), "levels")
		return
	}
	if field, reason := validateOptions(req.Priority, req.Budget, req.Labels); field != "" {
		writeError(w, http.StatusBadRequest, field+": "+reason, field)
		return
	}
	parseStart := time.Now()
	levels, versions, bad, nbad := s.parseLevels(req.Levels)
	if nbad > 0 {
		writeJSON(w, http.StatusBadRequest, errorBody{
			Error:  fmt.Sprintf("%d of %d levels are invalid; the batch was not stored", nbad, len(levels)),
			Errors: bad,
		})
		return
	}
	if req.Priority == "" {
		req.Priority = queue.Bulk
	}
	storeStart := time.Now()
	id, err := s.cfg.Store.CreateBatch(r.Context(), store.BatchParams{
		Levels: levels, Priority: req.Priority, Budget: req.Budget, Labels: req.Labels,
		MaxAttempts: s.cfg.Limits.MaxAttempts, Versions: versions,
	})
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	s.cfg.Logger.Info("batch stored", slog.Int64("batch_id", id), slog.Int("levels", len(levels)),
		slog.Duration("parse", storeStart.Sub(parseStart)), slog.Duration("store", time.Since(storeStart)))
	writeJSON(w, http.StatusAccepted, map[string]any{"id": id, "total": len(levels)})
}

// parseLevels validates every level of a batch, in parallel, and returns
// them as stored, the solver version of each kind present, and the first
// maxListedErrors bad levels in order with the count of all bad ones.
func (s *Server) parseLevels(raws []json.RawMessage) ([]store.Level, map[string]string, []levelError, int) {
	levels := make([]store.Level, len(raws))
	kinds := make([]solver.Kind, len(raws))
	errs := make([]error, len(raws))
	workers := runtime.GOMAXPROCS(0)
	chunk := (len(raws) + workers - 1) / workers
	var wg sync.WaitGroup
	for lo := 0; lo < len(raws); lo += chunk {
		hi := min(lo+chunk, len(raws))
		wg.Go(func() {
			for i := lo; i < hi; i++ {
				levels[i], kinds[i], errs[i] = s.parseLevel(raws[i])
			}
		})
	}
	wg.Wait()
	versions := map[string]string{}
	var bad []levelError
	nbad := 0
	for i, err := range errs {
		if err == nil {
			versions[kinds[i].Name()] = kinds[i].Version()
			continue
		}
		nbad++
		if len(bad) < maxListedErrors {
			le := levelError{Index: i, Reason: err.Error()}
			var fe *solver.FieldError
			if errors.As(err, &fe) {
				le.Field, le.Reason = fe.Field, fe.Reason
			}
			bad = append(bad, le)
		}
	}
	return levels, versions, bad, nbad
}

// decodeBatch accepts the three body forms of POST /v1/batches.
func decodeBatch(body []byte, r *http.Request) (batchRequest, error) {
	var req batchRequest
	trimmed := bytes.TrimSpace(body)
	isNDJSON := strings.Contains(r.Header.Get("Content-Type"), "ndjson")
	switch {
	case len(trimmed) == 0:
		return req, &solver.FieldError{Field: "levels", Reason: "empty body"}
	case trimmed[0] == '[' && !isNDJSON:
		if err := json.Unmarshal(trimmed, &req.Levels); err != nil {
			return req, solver.DecodeError(err)
		}
	case trimmed[0] == '{' && !isNDJSON && isWrapper(trimmed):
		if err := solver.DecodeStrict(trimmed, &req); err != nil {
			return req, err
		}
		return req, noQueryOptions(r)
	default:
		levels, err := decodeNDJSON(trimmed)
		if err != nil {
			return req, err
		}
		req.Levels = levels
	}
	return req, queryOptions(r, &req)
}

// isWrapper reports whether an object body is the {"levels": …} form
// rather than the first line of NDJSON.
func isWrapper(body []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(body))
	var head map[string]json.RawMessage
	if err := dec.Decode(&head); err != nil {
		return false
	}
	_, ok := head["levels"]
	return ok && !dec.More()
}

func decodeNDJSON(body []byte) ([]json.RawMessage, error) {
	var levels []json.RawMessage
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, len(body)+1)
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		if !json.Valid(text) {
			var v any
			err := json.Unmarshal(text, &v)
			return nil, &solver.FieldError{Field: fmt.Sprintf("line %d", line), Reason: solver.DecodeError(err).Error()}
		}
		levels = append(levels, json.RawMessage(bytes.Clone(text)))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading NDJSON: %w", err)
	}
	return levels, nil
}

func queryOptions(r *http.Request, req *batchRequest) error {
	q := r.URL.Query()
	req.Priority = q.Get("priority")
	for name, dst := range map[string]*int64{"max_ms": &req.Budget.MaxMS, "max_nodes": &req.Budget.MaxNodes} {
		if v := q.Get(name); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return &solver.FieldError{Field: name, Reason: "must be an integer"}
			}
			*dst = n
		}
	}
	return nil
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
	writeJSON(w, http.StatusOK, toWireBatch(b))
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
	writeJSON(w, http.StatusOK, wire.BatchCancel{ID: id, Canceled: len(ids)})
}
