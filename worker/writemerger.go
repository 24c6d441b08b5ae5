package worker

import (
	"context"
	"time"
)

// batcher merges the calls of concurrent handlers into one flush: while a
// flush is in flight, new calls queue up, and the next flush takes them
// all. Under load this turns one PostgreSQL statement per job into one per
// batch; when idle a call is flushed at once, so no latency is added.
type batcher[Req, Resp any] struct {
	calls chan batchCall[Req, Resp]
	// flush answers reqs in order.
	flush func(ctx context.Context, reqs []Req) ([]Resp, error)
	max   int
}

type batchCall[Req, Resp any] struct {
	req   Req
	reply chan batchReply[Resp]
}

type batchReply[Resp any] struct {
	resp Resp
	err  error
}

// flushTimeout bounds one flush.
const flushTimeout = 30 * time.Second

func newBatcher[Req, Resp any](max int, flush func(context.Context, []Req) ([]Resp, error)) *batcher[Req, Resp] {
	return &batcher[Req, Resp]{calls: make(chan batchCall[Req, Resp]), flush: flush, max: max}
}

// do hands req to the next flush and waits for its answer.
func (b *batcher[Req, Resp]) do(ctx context.Context, req Req) (Resp, error) {
	c := batchCall[Req, Resp]{req: req, reply: make(chan batchReply[Resp], 1)}
	var zero Resp
	select {
	case b.calls <- c:
	case <-ctx.Done():
		return zero, ctx.Err()
	}
	r := <-c.reply // a flush always answers, bounded by flushTimeout
	return r.resp, r.err
}

// run flushes until life ends; then it answers nothing more, and callers
// waiting to hand in a call give up with their own ctx.
func (b *batcher[Req, Resp]) run(life context.Context) {
	for {
		var batch []batchCall[Req, Resp]
		select {
		case c := <-b.calls:
			batch = append(batch, c)
		case <-life.Done():
			return
		}
	drain:
		for len(batch) < b.max {
			select {
			case c := <-b.calls:
				batch = append(batch, c)
			default:
				break drain
			}
		}
		reqs := make([]Req, len(batch))
		for i, c := range batch {
			reqs[i] = c.req
		}
		ctx, cancel := context.WithTimeout(context.WithoutCancel(life), flushTimeout)
		resps, err := b.flush(ctx, reqs)
		cancel()
		for i, c := range batch {
			var r batchReply[Resp]
			if err != nil {
				r.err = err
			} else {
				r.resp = resps[i]
			}
			c.reply <- r
		}
	}
}
