package solveproc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/puzzled/puzzled/solver"
)

// freeAfter: a child returns its free memory to the system after a solve
// that took this long; a collection costs about a millisecond then.
const freeAfter = 100 * time.Millisecond

// Serve is the loop of a child process: it reads solve requests from in,
// one at a time, runs each with [Run] and writes its checkpoints and result
// to out. A cancel frame stops the running solve as its context would. It
// returns nil when in ends (the parent closed it, or died: the running
// solve stops then too), and an error when a frame is malformed or out
// fails.
func Serve(ctx context.Context, in io.Reader, out io.Writer, reg *solver.Registry, log *slog.Logger) error {
	r, w := bufio.NewReaderSize(in, 64<<10), bufio.NewWriterSize(out, 64<<10)
	type solve struct {
		req    header
		lvl    []byte
		res    []byte
		ctx    context.Context
		cancel context.CancelFunc
	}
	var (
		mu      sync.Mutex
		running uint64 // seq of the running solve, 0 if none
		stop    context.CancelFunc
	)
	solves := make(chan solve)
	readErr := make(chan error, 1)
	go func() {
		defer close(solves)
		for {
			h, blobs, err := readFrame(r)
			if err != nil {
				if errors.Is(err, io.EOF) {
					err = nil
				}
				mu.Lock()
				if stop != nil {
					stop() // nobody will read the result
				}
				mu.Unlock()
				readErr <- err
				return
			}
			switch h.Op {
			case opCancel:
				mu.Lock()
				if running == h.Seq && stop != nil {
					stop()
				}
				mu.Unlock()
			case opSolve:
				if h.Request == nil {
					readErr <- fmt.Errorf("solveproc: solve frame %d without a request", h.Seq)
					return
				}
				// Running from here on: a cancel frame right behind this
				// one must find it, even before the loop below takes it.
				sctx, cancel := context.WithCancel(ctx)
				mu.Lock()
				running, stop = h.Seq, cancel
				mu.Unlock()
				solves <- solve{req: h, lvl: blob(blobs, 0), res: blob(blobs, 1), ctx: sctx, cancel: cancel}
			default:
				readErr <- fmt.Errorf("solveproc: unknown frame %q", h.Op)
				return
			}
		}
	}()
	for s := range solves {
		req := *s.req.Request
		req.Level, req.Resume = s.lvl, s.res
		if len(req.Resume) == 0 {
			req.Resume = nil // a frame does not tell nil from empty; no checkpoint is empty
		}
		// The parent retries a solve whose child died before this frame.
		werr := writeFrame(w, header{Op: opStarted, Seq: s.req.Seq})
		checkpoint := func(b []byte) {
			if werr == nil {
				werr = writeFrame(w, header{Op: opCheckpoint, Seq: s.req.Seq}, b)
			}
		}
		start := time.Now()
		res, err := Run(s.ctx, reg, req, checkpoint, log.With(slog.Int64("job_id", req.JobID)))
		mu.Lock()
		running, stop = 0, nil
		mu.Unlock()
		s.cancel()
		done := header{Op: opDone, Seq: s.req.Seq}
		if err != nil {
			done.Error, done.Class = err.Error(), classSearch
			if errors.Is(err, ErrFinal) {
				done.Class = classFinal
			}
		}
		plan := res.Plan
		res.Plan = nil
		done.Result = &res
		if werr == nil {
			werr = writeFrame(w, done, plan)
		}
		if werr != nil {
			return fmt.Errorf("solveproc: write to parent: %w", werr)
		}
		if time.Since(start) >= freeAfter {
			// A long search leaves a large heap (sheep's dead-state table
			// is up to 224 MB) that is garbage now; the next collection
			// would come only once the heap doubles from its peak, so an
			// idle child would hold it. Give it back to the system.
			debug.FreeOSMemory()
		}
	}
	return <-readErr
}
