package solveproc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/puzzled/puzzled/solver"
)

// PoolConfig configures a Pool.
type PoolConfig struct {
	// Command returns the command of a new child, not started: a process
	// that runs Serve on its stdin and stdout (puzzled solve-child). The
	// pool sets its stdin and stdout; stderr is the command's.
	Command func() *exec.Cmd
	// KillAfter is how long a child gets to answer a cancel before it is
	// killed (default 5 s; the solvers stop within about 100 ms).
	KillAfter time.Duration
	Logger    *slog.Logger
}

// ErrNoChild: the pool could not start a child process. The caller may
// run the solve in its own process instead.
var ErrNoChild = errors.New("solveproc: no child process")

// Pool runs solves in child processes, one solve per child at a time. It
// keeps the children that finished a solve for the next ones, so a solve
// costs two frames, not a process start. Children that die or stop
// answering are replaced.
type Pool struct {
	cfg PoolConfig

	mu     sync.Mutex
	idle   []*child
	all    map[*child]bool
	closed bool
	paused bool // Pause: every child is stopped, and new ones are
}

// NewPool returns a pool with no children yet; they start on demand.
func NewPool(cfg PoolConfig) *Pool {
	if cfg.KillAfter <= 0 {
		cfg.KillAfter = 5 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Pool{cfg: cfg, all: map[*child]bool{}}
}

// child is one child process.
type child struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *os.File // its stdout, read through r
	w      *bufio.Writer
	wmu    sync.Mutex // solve and cancel frames come from two goroutines
	r      *bufio.Reader
	exited chan struct{} // closed when the process has been waited for
	err    error         // its exit, once exited is closed
	seq    uint64
}

func (c *child) send(h header, blobs ...[]byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return writeFrame(c.w, h, blobs...)
}

// drop closes the pipes of a child the pool no longer uses; with its
// stdin closed it exits.
func (c *child) drop() {
	_ = c.in.Close()
	_ = c.out.Close()
}

func (c *child) alive() bool {
	select {
	case <-c.exited:
		return false
	default:
		return true
	}
}

// Solve runs req in a child process, as Run would in this one: same
// result, same errors (ErrFinal included), checkpoints handed to
// checkpoint as they come. When ctx ends the child is told to stop and
// answers with the partial result; one that does not within KillAfter is
// killed. A child that dies fails the solve with an error that is not
// ErrFinal, so the job is retried. ErrNoChild: no child could be started.
func (p *Pool) Solve(ctx context.Context, req Request, checkpoint func([]byte)) (solver.Result, error) {
	res, err := p.solveOnce(ctx, req, checkpoint)
	if errors.Is(err, errNotStarted) && ctx.Err() == nil {
		// The child died before it read the request (an idle child
		// killed from outside): nothing ran, so another child may try.
		p.cfg.Logger.Warn("solve process died before it started a solve; trying another", slog.Any("error", err))
		res, err = p.solveOnce(ctx, req, checkpoint)
	}
	return res, err
}

// solveOnce is Solve with one child.
func (p *Pool) solveOnce(ctx context.Context, req Request, checkpoint func([]byte)) (solver.Result, error) {
	c, err := p.get()
	if err != nil {
		return solver.Result{}, err
	}
	c.seq++
	seq := c.seq
	if err := c.send(header{Op: opSolve, Seq: seq, Request: &req}, req.Level, req.Resume); err != nil {
		p.discard(c)
		return solver.Result{}, fmt.Errorf("%w: child %d: %w: %w", errChildLost, c.cmd.Process.Pid, errNotStarted, err)
	}
	var kill *time.Timer
	watched := make(chan struct{})
	stopWatch := context.AfterFunc(ctx, func() {
		defer close(watched)
		_ = c.send(header{Op: opCancel, Seq: seq}) // a dead child is noticed by the read
		kill = time.AfterFunc(p.cfg.KillAfter, func() { _ = c.cmd.Process.Kill() })
	})
	res, err := p.await(c, seq, checkpoint)
	if !stopWatch() {
		// The cancel was sent or is being sent: wait until it is out, so
		// that it never lands in the child's next solve (it would be
		// ignored there anyway: it names this solve's seq).
		<-watched
		if !kill.Stop() {
			p.discard(c) // killed, or being killed, as it answered
			return res, err
		}
	}
	if errors.Is(err, errChildLost) {
		p.discard(c)
		return res, err
	}
	p.put(c)
	return res, err
}

var (
	// errChildLost: the child died or broke the protocol during a solve.
	errChildLost = errors.New("solve process lost")
	// errNotStarted: it died before it had read the solve's request.
	errNotStarted = errors.New("before the solve started")
)

// await reads c's frames until the result of solve seq.
func (p *Pool) await(c *child, seq uint64, checkpoint func([]byte)) (solver.Result, error) {
	started := false
	for {
		h, blobs, err := readFrame(c.r)
		if err != nil {
			if !started {
				err = fmt.Errorf("%w: %w", errNotStarted, err)
			}
			return solver.Result{}, p.lost(c, err)
		}
		if h.Seq != seq {
			return solver.Result{}, p.lost(c, fmt.Errorf("frame %q of solve %d during solve %d", h.Op, h.Seq, seq))
		}
		switch h.Op {
		case opStarted:
			started = true
		case opCheckpoint:
			if checkpoint != nil {
				checkpoint(blob(blobs, 0))
			}
		case opDone:
			if h.Result == nil {
				return solver.Result{}, p.lost(c, errors.New("done frame without a result"))
			}
			res := *h.Result
			res.Plan = blob(blobs, 0)
			switch h.Class {
			case "":
				return res, nil
			case classFinal:
				return res, fmt.Errorf("%w: %s", ErrFinal, trimFinal(h.Error))
			default:
				return res, fmt.Errorf("in solve process: %s", h.Error)
			}
		default:
			return solver.Result{}, p.lost(c, fmt.Errorf("unexpected frame %q", h.Op))
		}
	}
}

// lost describes why a child failed a solve: its exit if it died.
func (p *Pool) lost(c *child, err error) error {
	_ = c.cmd.Process.Kill()
	select {
	case <-c.exited:
		if c.err != nil {
			err = fmt.Errorf("%w (%w)", err, c.err)
		}
	case <-time.After(time.Second):
	}
	return fmt.Errorf("%w: child %d: %w", errChildLost, c.cmd.Process.Pid, err)
}

// trimFinal drops the "permanent failure: " prefix that the child's
// error carries, since the parent wraps ErrFinal again.
func trimFinal(msg string) string {
	prefix := ErrFinal.Error() + ": "
	if len(msg) >= len(prefix) && msg[:len(prefix)] == prefix {
		return msg[len(prefix):]
	}
	return msg
}

// get returns an idle live child, or starts one.
func (p *Pool) get() (*child, error) {
	p.mu.Lock()
	for len(p.idle) > 0 {
		c := p.idle[len(p.idle)-1]
		p.idle = p.idle[:len(p.idle)-1]
		if c.alive() {
			p.mu.Unlock()
			return c, nil
		}
		c.drop()
		delete(p.all, c)
	}
	if p.closed {
		p.mu.Unlock()
		return nil, fmt.Errorf("%w: pool closed", ErrNoChild)
	}
	p.mu.Unlock()
	c, err := p.start()
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		c.drop()
		return nil, fmt.Errorf("%w: pool closed", ErrNoChild)
	}
	p.all[c] = true
	if p.paused {
		c.pause(true)
	}
	return c, nil
}

// Pause stops every child (SIGSTOP) until Resume, children started
// meanwhile included: their searches hold no CPU while interactive work
// runs (see worker's yielder). A stopped child cannot answer a cancel, so
// pauses must be short next to KillAfter; it can still be killed, and on
// Linux the kernel kills it when this process dies (dieWithParent). Pause
// does nothing on other systems.
func (p *Pool) Pause() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.paused {
		return
	}
	p.paused = true
	for c := range p.all {
		c.pause(true)
	}
}

// Resume lets the children stopped by Pause go on (SIGCONT).
func (p *Pool) Resume() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.paused {
		return
	}
	p.paused = false
	for c := range p.all {
		c.pause(false)
	}
}

// pause stops (SIGSTOP) or continues (SIGCONT) a live child; one that
// exited meanwhile is no error.
func (c *child) pause(stop bool) {
	if c.alive() {
		_ = pauseProcess(c.cmd.Process, stop)
	}
}

func (p *Pool) start() (*child, error) {
	cmd := p.cfg.Command()
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoChild, err)
	}
	// Not StdoutPipe: Wait closes that pipe as soon as the child exits,
	// and the read of its last frames could fail with "file already
	// closed" instead of reading them, then EOF.
	out, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoChild, err)
	}
	cmd.Stdout = w
	dieWithParent(cmd)
	err = cmd.Start()
	w.Close() // the child has its copy
	if err != nil {
		out.Close()
		return nil, fmt.Errorf("%w: %w", ErrNoChild, err)
	}
	c := &child{cmd: cmd, in: in, out: out, w: bufio.NewWriterSize(in, 64<<10), r: bufio.NewReaderSize(out, 64<<10),
		exited: make(chan struct{})}
	go func() {
		c.err = cmd.Wait()
		close(c.exited)
	}()
	p.cfg.Logger.Debug("solve process started", slog.Int("pid", cmd.Process.Pid))
	return c, nil
}

func (p *Pool) put(c *child) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || !c.alive() {
		c.drop()
		delete(p.all, c)
		return
	}
	p.idle = append(p.idle, c)
}

func (p *Pool) discard(c *child) {
	_ = c.cmd.Process.Kill()
	c.drop()
	p.mu.Lock()
	delete(p.all, c)
	p.mu.Unlock()
}

// Close ends every child: idle ones at once (their stdin closes and they
// exit), busy ones when their solve ends (the caller cancels those). It
// waits up to timeout for them to exit, then kills what is left.
func (p *Pool) Close(timeout time.Duration) {
	p.Resume() // a stopped child could not exit
	p.mu.Lock()
	p.closed = true
	for _, c := range p.idle {
		c.drop()
	}
	p.idle = nil
	all := make([]*child, 0, len(p.all))
	for c := range p.all {
		all = append(all, c)
	}
	p.mu.Unlock()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for _, c := range all {
		select {
		case <-c.exited:
		case <-deadline.C:
			for _, c := range all {
				_ = c.cmd.Process.Kill()
			}
			<-c.exited
		}
	}
}
