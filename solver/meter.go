package solver

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"time"
)

// Meter counts the nodes of one search and tells it when to stop and when
// to checkpoint. Every kind uses one so budgets, cancellation and
// checkpoints behave the same everywhere. A Meter is not safe for
// concurrent use; a search owns it.
//
// Nodes and elapsed time continue across resumes: the envelope that
// [Meter.Checkpoint] writes around the kind's payload records both.
type Meter struct {
	ctx     context.Context
	opts    Options
	start   time.Time
	elapsed time.Duration // elapsed before this attempt (from Resume)
	nodes   int64
	payload []byte // kind payload from Resume, nil if fresh

	lastCheckpoint time.Time
	checkpoints    int
	stopped        error       // why Stop reported true, sticky
	best           func() Best // the search's best line so far, for checkpoints; nil if it keeps none

	// alarm is set by a timer at the time budget's end and when ctx ends,
	// so Tick notices both at the next node however long nodes take; the
	// timer and the ctx hook are released by Stats, which every kind calls
	// when its search ends.
	alarm     *atomic.Bool
	stopTimer func() bool
	stopHook  func() bool
	released  bool
}

// ErrBudget is the stop reason when the node or time budget ran out.
var ErrBudget = errors.New("budget exhausted")

// checkIntervalMask makes Tick also look at the clock and ctx every 1024
// nodes; the alarm (see Meter) is what keeps budgets when nodes are slow,
// this only backs it up after Stats released it.
const checkIntervalMask = 1<<10 - 1

// A checkpoint envelope is the magic, the node count and elapsed time
// (8 bytes each, little endian), then in version 2 the best line so far
// (4 bytes of length, then its JSON), then the kind's payload. Version 1
// blobs (no best line) still resume.
const (
	envelopeMagic   = "PZC2" // puzzled checkpoint, envelope version 2
	envelopeMagicV1 = "PZC1"
	envelopeHeader  = 20 // magic, nodes, elapsed
)

// Best is a search's best line so far: what a running job shows while it
// runs, and the line an unknown result would end with.
type Best struct {
	// Plan is the kind's plan JSON of the line.
	Plan json.RawMessage `json:"plan"`
	// Moves is the number of moves of Plan.
	Moves int `json:"moves"`
	// Details says how far the line gets, as the kind's result details do
	// ("cleared" tiles of "tiles", a score).
	Details map[string]any `json:"details,omitempty"`
}

// envelope splits a checkpoint blob: its node count, elapsed time, best
// line JSON (nil if none) and the kind's payload; ok is false if blob is
// not an envelope.
func envelope(b []byte) (nodes int64, elapsed time.Duration, best, payload []byte, ok bool) {
	if len(b) < envelopeHeader {
		return 0, 0, nil, nil, false
	}
	nodes = int64(binary.LittleEndian.Uint64(b[4:]))
	elapsed = time.Duration(binary.LittleEndian.Uint64(b[12:]))
	switch string(b[:4]) {
	case envelopeMagicV1:
		return nodes, elapsed, nil, b[envelopeHeader:], true
	case envelopeMagic:
		rest := b[envelopeHeader:]
		if len(rest) < 4 {
			return 0, 0, nil, nil, false
		}
		n := binary.LittleEndian.Uint32(rest)
		if uint64(n) > uint64(len(rest)-4) {
			return 0, 0, nil, nil, false
		}
		if n > 0 {
			best = rest[4 : 4+n]
		}
		return nodes, elapsed, best, rest[4+n:], true
	}
	return 0, 0, nil, nil, false
}

// NewMeter starts metering a search. If opts.Resume is set it must be an
// envelope written by a Meter; the kind's own payload is then available
// from [Meter.Resumed].
func NewMeter(ctx context.Context, opts Options) (*Meter, error) {
	m := &Meter{ctx: ctx, opts: opts, start: time.Now()}
	m.lastCheckpoint = m.start
	if opts.Resume != nil {
		nodes, elapsed, _, payload, ok := envelope(opts.Resume)
		if !ok {
			return nil, fmt.Errorf("solver: resume blob is not a checkpoint envelope")
		}
		m.nodes, m.elapsed, m.payload = nodes, elapsed, payload
	}
	m.setAlarms()
	return m, nil
}

// setAlarms arms the alarm for the end of the time budget and for ctx.
// The callbacks hold only the flag, not the Meter.
func (m *Meter) setAlarms() {
	alarm := new(atomic.Bool)
	m.alarm = alarm
	ring := func() { alarm.Store(true) }
	if b := m.opts.Budget.MaxMS; b > 0 {
		left := time.Duration(b)*time.Millisecond - m.elapsed
		if left <= 0 { // a resume that used its budget up: ring now, not from a goroutine
			ring()
		}
		m.stopTimer = time.AfterFunc(left, ring).Stop
	}
	if m.ctx.Err() != nil {
		ring()
	}
	m.stopHook = context.AfterFunc(m.ctx, ring)
}

// release stops the alarm's timer and ctx hook.
func (m *Meter) release() {
	m.released = true
	if m.stopTimer != nil {
		m.stopTimer()
		m.stopTimer = nil
	}
	if m.stopHook != nil {
		m.stopHook()
		m.stopHook = nil
	}
}

// Resumed returns the kind's payload from the resume blob, or nil.
func (m *Meter) Resumed() []byte { return m.payload }

// Nodes is the number of nodes counted so far, across resumes.
func (m *Meter) Nodes() int64 { return m.nodes }

// Elapsed is the search time so far, across resumes.
func (m *Meter) Elapsed() time.Duration { return m.elapsed + time.Since(m.start) }

// Tick counts one node and reports whether the search must stop now
// (budget exhausted or ctx done). Once it reports true it keeps doing so.
func (m *Meter) Tick() bool {
	m.nodes++
	if m.stopped != nil {
		return true
	}
	if b := m.opts.Budget.MaxNodes; b > 0 && m.nodes >= b {
		m.stopped = ErrBudget
		return true
	}
	if m.alarm.Load() || m.nodes&checkIntervalMask == 0 {
		return m.checkClock()
	}
	return false
}

// Stopped reports whether the search must stop, without counting a node.
// It is as cheap as Tick: call it between expensive steps that are not
// nodes, or inside them (a bound computed for each child of a node).
func (m *Meter) Stopped() bool {
	if m.stopped != nil {
		return true
	}
	// ctx is asked too: the alarm's ctx hook runs in a goroutine of its
	// own, and a caller that saw ctx end (zuma's incumbent) must find the
	// meter stopped.
	if m.alarm.Load() || m.released || m.ctx.Err() != nil {
		return m.checkClock()
	}
	return false
}

func (m *Meter) checkClock() bool {
	if err := m.ctx.Err(); err != nil {
		m.stopped = err
		return true
	}
	if b := m.opts.Budget.MaxMS; b > 0 && m.Elapsed() >= time.Duration(b)*time.Millisecond {
		m.stopped = ErrBudget
		return true
	}
	return false
}

// Err is why the search stopped: nil if it did not, [ErrBudget], or ctx's
// error wrapped. Solve returns a non-nil error only for the ctx case.
func (m *Meter) Err() error {
	if m.stopped == nil || errors.Is(m.stopped, ErrBudget) {
		return nil
	}
	return fmt.Errorf("solver: search interrupted: %w", m.stopped)
}

// StopReason is like Err but includes ErrBudget.
func (m *Meter) StopReason() error { return m.stopped }

// CheckpointDue reports whether a checkpoint should be written now.
// It is cheap enough to call at every safe point.
func (m *Meter) CheckpointDue() bool {
	if m.opts.Checkpoint == nil || m.opts.CheckpointEvery <= 0 {
		return false
	}
	return time.Since(m.lastCheckpoint) >= m.opts.CheckpointEvery
}

// KeepsBest tells the meter how to read the search's best line so far. It
// is called at each checkpoint only (on the search's goroutine, at a safe
// point), so a search pays nothing between checkpoints for it.
func (m *Meter) KeepsBest(best func() Best) { m.best = best }

// Checkpoint wraps the kind's payload with the node count, elapsed time
// and best line so far, and hands it to Options.Checkpoint. Callers check
// [Meter.CheckpointDue] first, or call it unconditionally at a final safe
// point (e.g. on cancel).
func (m *Meter) Checkpoint(payload []byte) {
	if m.opts.Checkpoint == nil {
		return
	}
	var best []byte
	if m.best != nil {
		if b := m.best(); b.Plan != nil {
			best, _ = json.Marshal(b) // a Best always marshals; nil leaves the line out
		}
	}
	blob := make([]byte, envelopeHeader+4, envelopeHeader+4+len(best)+len(payload))
	copy(blob, envelopeMagic)
	binary.LittleEndian.PutUint64(blob[4:], uint64(m.nodes))
	binary.LittleEndian.PutUint64(blob[12:], uint64(m.Elapsed()))
	binary.LittleEndian.PutUint32(blob[envelopeHeader:], uint32(len(best)))
	blob = append(blob, best...)
	blob = append(blob, payload...)
	m.opts.Checkpoint(blob)
	m.checkpoints++
	m.lastCheckpoint = time.Now()
}

// Stats fills the common fields of Stats from the meter. Kinds call it
// when the search is over: it also releases the meter's alarm.
func (m *Meter) Stats(depth int) Stats {
	m.release()
	return Stats{
		Nodes:       m.nodes,
		Depth:       depth,
		ElapsedMS:   m.Elapsed().Milliseconds(),
		Checkpoints: m.checkpoints,
		Resumed:     m.opts.Resume != nil,
	}
}

// CheckpointNodes reads the node count recorded in a checkpoint blob, for
// progress reports; 0 if blob is not an envelope.
func CheckpointNodes(blob []byte) int64 {
	nodes, _, _, _, _ := envelope(blob)
	return nodes
}

// CheckpointPayload is the kind's payload of a checkpoint blob; nil if blob
// is not an envelope.
func CheckpointPayload(blob []byte) []byte {
	_, _, _, payload, _ := envelope(blob)
	return payload
}

// CheckpointBest reads the best line so far recorded in a checkpoint blob
// (JSON of a [Best]), for progress reports; nil if it has none.
func CheckpointBest(blob []byte) json.RawMessage {
	_, _, best, _, _ := envelope(blob)
	return best
}
