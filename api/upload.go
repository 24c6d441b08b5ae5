package api

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// errTooSlow ends an upload that falls under the minimum rate: a client
// sending a byte every few seconds would otherwise hold a connection, a
// database transaction and an upload slot forever.
var errTooSlow = errors.New("request body arrived too slowly")

// slowGuard wraps a request body: each read must make progress within
// UploadIdle (a read deadline on the connection), and after UploadGrace
// the body must have come at MinUploadRate bytes per second on average.
type slowGuard struct {
	r       io.Reader
	rc      *http.ResponseController
	limits  Limits
	started time.Time
	n       int64
	err     error
}

func newSlowGuard(w http.ResponseWriter, r io.Reader, l Limits) *slowGuard {
	return &slowGuard{r: r, rc: http.NewResponseController(w), limits: l, started: time.Now()}
}

func (g *slowGuard) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	elapsed := time.Since(g.started)
	if elapsed > g.limits.UploadGrace && float64(g.n) < g.limits.MinUploadRate*elapsed.Seconds() {
		g.err = fmt.Errorf("%w: %d bytes in %s, under the minimum of %g bytes/s", errTooSlow, g.n, elapsed.Round(time.Millisecond), g.limits.MinUploadRate)
		return 0, g.err
	}
	// Best effort: a ResponseWriter that cannot set deadlines (in tests)
	// still gets the rate check above.
	_ = g.rc.SetReadDeadline(time.Now().Add(g.limits.UploadIdle))
	n, err := g.r.Read(p)
	g.n += int64(n)
	if err == nil {
		return n, nil
	}
	// The body has ended: lift the deadline, and never set it again (a
	// decoder may read again after the end). Left armed, it fires while the
	// handler is still at work on what it read (a batch's database phase
	// may take longer than UploadIdle), and the server, taking it for a
	// client gone, cancels the request and closes the connection with no
	// answer.
	_ = g.rc.SetReadDeadline(time.Time{})
	g.err = err
	if isTimeout(err) {
		g.err = fmt.Errorf("%w: nothing for %s", errTooSlow, g.limits.UploadIdle)
	}
	return n, g.err
}

func isTimeout(err error) bool {
	var te interface{ Timeout() bool }
	return errors.As(err, &te) && te.Timeout()
}

// uploadSlots bounds the batch uploads read at once: each holds buffers, a
// level being parsed and a database transaction.
type uploadSlots chan struct{}

func (u uploadSlots) tryAcquire() bool {
	select {
	case u <- struct{}{}:
		return true
	default:
		return false
	}
}

func (u uploadSlots) release() { <-u }

// writeBusy answers 503 with Retry-After when every upload slot is taken.
func writeBusy(w http.ResponseWriter, slots int) {
	w.Header().Set("Retry-After", strconv.Itoa(2))
	writeError(w, http.StatusServiceUnavailable,
		fmt.Sprintf("busy: %d batch uploads are being read already; retry later", slots), "")
}
