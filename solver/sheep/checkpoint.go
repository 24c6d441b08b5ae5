package sheep

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
)

// Checkpoint payload (inside the solver.Meter envelope), version 1:
//
//	"SH" 0x01 | level fingerprint (8 bytes, FNV-64a of the canonical JSON)
//	| uvarint frames | per frame: uvarint (next move index within frame)
//	| uvarint len(best) | best line as uvarint tile indices
//
// Move lists are a pure function of the state, so the path is rebuilt by
// regenerating each frame and clicking move next-1 of every frame but the
// top one. The transposition table is not saved: it only holds dead
// states, so an empty one costs re-search, never a different answer.
const payloadMagic = "SH\x01"

var errPayload = errors.New("sheep: bad checkpoint payload")

func fingerprint(l *Level) uint64 {
	h := fnv.New64a()
	h.Write(l.canonical)
	return h.Sum64()
}

func (s *search) encode() []byte {
	buf := make([]byte, 0, 16+3*len(s.frames)+2*len(s.best))
	buf = append(buf, payloadMagic...)
	buf = binary.LittleEndian.AppendUint64(buf, s.fp)
	buf = binary.AppendUvarint(buf, uint64(len(s.frames)))
	for _, f := range s.frames {
		buf = binary.AppendUvarint(buf, uint64(f.next-f.start))
	}
	buf = binary.AppendUvarint(buf, uint64(len(s.best)))
	for _, t := range s.best {
		buf = binary.AppendUvarint(buf, uint64(t))
	}
	return buf
}

// resume restores the DFS from a payload written by encode.
func (s *search) resume(p []byte) error {
	r := payloadReader{b: p}
	if len(p) < len(payloadMagic)+8 || string(p[:len(payloadMagic)]) != payloadMagic {
		return fmt.Errorf("%w: unknown version", errPayload)
	}
	r.b = p[len(payloadMagic):]
	if binary.LittleEndian.Uint64(r.b) != s.fp {
		return fmt.Errorf("%w: written for another level", errPayload)
	}
	r.b = r.b[8:]
	n := len(s.b.l.tiles)
	depth := r.next(n + 1)
	s.pushFrame()
	for d := 0; d < depth && r.err == nil; d++ {
		f := &s.frames[d]
		rel := r.next(int(f.end-f.start) + 1)
		f.next = f.start + int32(rel)
		if d == depth-1 {
			break
		}
		if rel == 0 {
			return fmt.Errorf("%w: frame %d has no move applied", errPayload, d)
		}
		mv := s.arena[f.next-1]
		s.b.apply(mv)
		s.path = append(s.path, mv)
		s.pushFrame()
	}
	if depth == 0 {
		return fmt.Errorf("%w: no frames", errPayload)
	}
	if err := s.resumeBest(&r, n); err != nil {
		return err
	}
	if r.err == nil && len(r.b) != 0 {
		r.err = fmt.Errorf("%w: trailing bytes", errPayload)
	}
	return r.err
}

func (s *search) resumeBest(r *payloadReader, n int) error {
	k := r.next(n + 1)
	line := make([]int32, 0, k)
	for i := 0; i < k && r.err == nil; i++ {
		line = append(line, int32(r.next(n)))
	}
	if r.err != nil {
		return r.err
	}
	cleared, ok := replayIdx(s.b.l, line)
	if !ok {
		return fmt.Errorf("%w: best line does not replay", errPayload)
	}
	s.best, s.bestCleared = line, cleared
	return nil
}

type payloadReader struct {
	b   []byte
	err error
}

// next reads a uvarint that must be below limit.
func (r *payloadReader) next(limit int) int {
	if r.err != nil {
		return 0
	}
	v, k := binary.Uvarint(r.b)
	if k <= 0 || v >= uint64(limit) {
		r.err = fmt.Errorf("%w: value out of range", errPayload)
		return 0
	}
	r.b = r.b[k:]
	return int(v)
}
