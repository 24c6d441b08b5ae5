package worker

import (
	"context"
	"time"
)

// writeMerger merges the store writes of concurrent handlers into one
// flush: while a flush is in flight, new calls queue up, and the next flush
// takes them all. Under load this turns one PostgreSQL statement per job
// into one per batch of calls; when idle a call is flushed at once, so no
// latency is added. (It has nothing to do with the API's batches.) Each
// goroutine that calls run is one flusher: with several, as many flushes
// may be in flight at once, each answering its own calls.
type writeMerger[Req, Resp any] struct {
	calls chan mergeCall[Req, Resp]
	// flush answers reqs in order.
	flush func(ctx context.Context, reqs []Req) ([]Resp, error)
	max   int
}

// mergeCall is one caller's requests (one, or a bundle's several).
type mergeCall[Req, Resp any] struct {
	reqs  []Req
	reply chan mergeReply[Resp]
}

type mergeReply[Resp any] struct {
	resps []Resp
	err   error
}

// flushTimeout bounds one flush.
const flushTimeout = 30 * time.Second

func newWriteMerger[Req, Resp any](max int, flush func(context.Context, []Req) ([]Resp, error)) *writeMerger[Req, Resp] {
	return &writeMerger[Req, Resp]{calls: make(chan mergeCall[Req, Resp]), flush: flush, max: max}
}

// do hands req to the next flush and waits for its answer.
func (b *writeMerger[Req, Resp]) do(ctx context.Context, req Req) (Resp, error) {
	resps, err := b.doAll(ctx, []Req{req})
	if err != nil {
		var zero Resp
		return zero, err
	}
	return resps[0], nil
}

// doAll hands reqs to the next flush together and waits for their answers.
func (b *writeMerger[Req, Resp]) doAll(ctx context.Context, reqs []Req) ([]Resp, error) {
	c := mergeCall[Req, Resp]{reqs: reqs, reply: make(chan mergeReply[Resp], 1)}
	select {
	case b.calls <- c:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	r := <-c.reply // a flush always answers, bounded by flushTimeout
	return r.resps, r.err
}

// run flushes until life ends; then it answers nothing more, and callers
// waiting to hand in a call give up with their own ctx.
func (b *writeMerger[Req, Resp]) run(life context.Context) {
	for {
		var batch []mergeCall[Req, Resp]
		n := 0
		select {
		case c := <-b.calls:
			batch, n = append(batch, c), len(c.reqs)
		case <-life.Done():
			return
		}
		for n < b.max && b.take(&batch, &n) {
		}
		reqs := make([]Req, 0, n)
		for _, c := range batch {
			reqs = append(reqs, c.reqs...)
		}
		ctx, cancel := context.WithTimeout(context.WithoutCancel(life), flushTimeout)
		resps, err := b.flush(ctx, reqs)
		cancel()
		for _, c := range batch {
			r := mergeReply[Resp]{err: err}
			if err == nil {
				r.resps, resps = resps[:len(c.reqs)], resps[len(c.reqs):]
			}
			c.reply <- r
		}
	}
}

// take adds a waiting call to batch, if there is one.
func (b *writeMerger[Req, Resp]) take(batch *[]mergeCall[Req, Resp], n *int) bool {
	select {
	case c := <-b.calls:
		*batch = append(*batch, c)
		*n += len(c.reqs)
		return true
	default:
		return false
	}
}
