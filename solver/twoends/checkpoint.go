package twoends

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// payloadMagic starts every checkpoint payload of this kind: kind tag and
// payload format version 1.
const payloadMagic = "TE\x01"

// ErrBadCheckpoint is returned when a resume payload cannot be used.
var ErrBadCheckpoint = errors.New("twoends: bad checkpoint payload")

// encode writes the state as magic, phase, then varints.
func (st *state) encode() []byte {
	b := append([]byte(payloadMagic), st.phase)
	switch st.phase {
	case phaseValue:
		b = binary.AppendUvarint(b, uint64(st.pos))
		b = binary.AppendUvarint(b, uint64(len(st.stack)))
		for _, v := range st.stack {
			b = binary.AppendVarint(b, v)
		}
	default:
		b = binary.AppendVarint(b, st.value)
		b = binary.AppendUvarint(b, uint64(st.i))
		b = binary.AppendUvarint(b, uint64(st.j))
		b = binary.AppendVarint(b, st.cur)
		b = binary.AppendUvarint(b, uint64(len(st.line)))
		b = append(b, st.line...)
	}
	return b
}

// decodeState reads a payload written by encode for a level of n values
// and checks that it is consistent with it.
func decodeState(p []byte, n int) (state, error) {
	var st state
	if len(p) < len(payloadMagic)+1 || string(p[:len(payloadMagic)]) != payloadMagic {
		return st, fmt.Errorf("%w: unknown format", ErrBadCheckpoint)
	}
	r := reader{b: p[len(payloadMagic)+1:]}
	st.phase = p[len(payloadMagic)]
	switch st.phase {
	case phaseValue:
		st.pos = r.count(n)
		size := r.count(st.pos)
		st.stack = make([]int64, 0, size)
		for range size {
			st.stack = append(st.stack, r.varint())
		}
	case phaseLine, phaseDone:
		st.value = r.varint()
		st.i = r.count(n)
		st.j = r.count(n)
		st.cur = r.varint()
		st.line = r.bytes(r.count(n))
		if r.err == nil && !lineStateOK(st, n) {
			r.err = errors.New("line state inconsistent with the level")
		}
	default:
		return st, fmt.Errorf("%w: unknown phase %d", ErrBadCheckpoint, st.phase)
	}
	if r.err == nil && len(r.b) != 0 {
		r.err = errors.New("trailing bytes")
	}
	if r.err != nil {
		return st, fmt.Errorf("%w: %w", ErrBadCheckpoint, r.err)
	}
	return st, nil
}

// lineStateOK checks that i, j and the line agree: i L-moves and
// n−1−j R-moves so far, and the phase matches what remains.
func lineStateOK(st state, n int) bool {
	ls := 0
	for _, c := range st.line {
		switch c {
		case 'L':
			ls++
		case 'R':
		default:
			return false
		}
	}
	if n > LineLimit {
		return st.phase == phaseDone && len(st.line) == 0 && st.i == 0 && st.j == n-1
	}
	if ls != st.i || len(st.line)-ls != n-1-st.j {
		return false
	}
	return (st.phase == phaseDone) == (len(st.line) == n)
}

// reader decodes varints and remembers the first error.
type reader struct {
	b   []byte
	err error
}

func (r *reader) varint() int64 {
	v, k := binary.Varint(r.b)
	if k <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[k:]
	return v
}

// count reads an unsigned varint that must lie in [0, limit].
func (r *reader) count(limit int) int {
	v, k := binary.Uvarint(r.b)
	if k <= 0 || v > uint64(limit) {
		r.fail()
		return 0
	}
	r.b = r.b[k:]
	return int(v)
}

func (r *reader) bytes(k int) []byte {
	if k > len(r.b) {
		r.fail()
		return nil
	}
	out := append([]byte(nil), r.b[:k]...)
	r.b = r.b[k:]
	return out
}

func (r *reader) fail() {
	if r.err == nil {
		r.err = errors.New("truncated or out of range")
	}
}
