package api

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/store"
)

// Long-polls: GET /v1/jobs/{id}?wait=30s and GET /v1/batches/{id}?wait=30s
// answer as soon as the job or batch is final, or when the wait ends, with
// the same body as without wait. The server holds no database connection
// while waiting: one listener per process (store.Listener) receives
// PostgreSQL notifications of final jobs and wakes the waiters, which then
// re-read the state.

// MaxWait caps the wait parameter.
const MaxWait = 60 * time.Second

// parseWait reads ?wait=: a Go duration ("30s", "1500ms") or seconds ("30").
func parseWait(w http.ResponseWriter, r *http.Request) (time.Duration, bool) {
	v := r.URL.Query().Get("wait")
	if v == "" {
		return 0, true
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		var secs int
		if _, serr := fmt.Sscanf(v, "%d", &secs); serr == nil && fmt.Sprint(secs) == v {
			d, err = time.Duration(secs)*time.Second, nil
		}
	}
	if err != nil || d < 0 || d > MaxWait {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("wait: must be a duration (30s) or seconds (30) between 0 and %s", MaxWait), "wait")
		return 0, false
	}
	return d, true
}

// waiter owns the process's listener, started on the first long-poll or
// the first stored token validated (watchRevokes), so that an API that
// needs neither opens no extra connection.
type waiter struct {
	st      *store.Store
	given   *store.Listener // from Config; run by its owner
	once    sync.Once
	l       *store.Listener
	stop    context.CancelFunc
	done    chan struct{}
	closing chan struct{} // closed at shutdown: long-polls answer at once
	closed  sync.Once
}

func newWaiter(st *store.Store, l *store.Listener) *waiter {
	return &waiter{st: st, given: l, closing: make(chan struct{})}
}

func (w *waiter) listener(s *Server) *store.Listener {
	w.once.Do(func() {
		if w.given != nil {
			w.l = w.given
			return
		}
		w.l = w.st.NewListener(s.cfg.Logger)
		ctx, cancel := context.WithCancel(context.Background())
		w.stop, w.done = cancel, make(chan struct{})
		go func() { defer close(w.done); w.l.Run(ctx) }()
	})
	return w.l
}

// close ends the waits in flight and stops the listener the API started.
func (w *waiter) close() {
	w.closed.Do(func() { close(w.closing) })
	w.once.Do(func() {}) // no listener may start after this
	if w.stop != nil {
		w.stop()
		<-w.done
	}
}

// waitUntil subscribes to key, then calls final until it reports true,
// the wait ends, the client leaves or the server shuts down; final is
// called again after each notification of key.
func (s *Server) waitUntil(ctx context.Context, key string, wait time.Duration, final func() (bool, error)) error {
	l := s.waiter.listener(s)
	if l == nil {
		return nil // shutting down
	}
	select {
	case <-l.Ready():
	case <-ctx.Done():
		return nil
	case <-time.After(wait):
		return nil
	}
	wake, unsubscribe := l.Subscribe(key)
	defer unsubscribe()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		ok, err := final()
		if err != nil || ok {
			return err
		}
		select {
		case <-wake:
		case <-timer.C:
			return nil
		case <-ctx.Done():
			return nil
		case <-s.waiter.closing:
			return nil
		}
	}
}

// Close ends long-polls in flight (they answer with the current state) and
// stops the notification listener the server started.
func (s *Server) Close() { s.waiter.close() }

func isFinal(state jobtype.State) bool { return state.Final() }

// getJobWaiting is GET /v1/jobs/{id}: with ?wait=, it first waits for the
// job to be final, then answers as getJob does.
func (s *Server) getJobWaiting(w http.ResponseWriter, r *http.Request) {
	wait, ok := parseWait(w, r)
	if !ok {
		return
	}
	id, err := parsePathID(r)
	if wait > 0 && err == nil {
		job, err := s.cfg.Store.GetJob(r.Context(), id)
		if err == nil && !isFinal(job.State) {
			err = s.waitUntil(r.Context(), store.JobKey(id, job.BatchID), wait, func() (bool, error) {
				state, err := s.cfg.Store.JobState(r.Context(), id)
				return isFinal(state), err
			})
			if err != nil && r.Context().Err() == nil {
				s.writeStoreError(w, r, err)
				return
			}
		}
	}
	s.getJob(w, r)
}

// getBatchWaiting is GET /v1/batches/{id}: with ?wait=, it first waits for
// every job of the batch to be final, then answers as getBatch does.
func (s *Server) getBatchWaiting(w http.ResponseWriter, r *http.Request) {
	wait, ok := parseWait(w, r)
	if !ok {
		return
	}
	id, err := parsePathID(r)
	if wait > 0 && err == nil {
		err := s.waitUntil(r.Context(), store.BatchKey(id), wait, func() (bool, error) {
			return s.cfg.Store.BatchFinal(r.Context(), id)
		})
		if err != nil && r.Context().Err() == nil {
			s.writeStoreError(w, r, err)
			return
		}
	}
	s.getBatch(w, r)
}

// parsePathID reads the {id} path value without answering.
func parsePathID(r *http.Request) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err == nil && id <= 0 {
		err = fmt.Errorf("id %d is not positive", id)
	}
	return id, err
}
