package sheep

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	mathbits "math/bits"
)

// Checkpoint payload (inside the solver.Meter envelope), version 2:
//
//	"SH" 0x02 | level fingerprint (8 bytes, FNV-64a of the canonical JSON)
//	| uvarint pass | uvarint nodes of the pass so far
//	| uvarint frames | per frame: uvarint (next move index within frame)
//	| uvarint len(best) | best line as uvarint tile indices
//	| uvarint dead states | each as the removed-set bitset (8-byte words)
//	| FNV-64a checksum of everything before (8 bytes)
//
// Move lists are a pure function of the state and the pass, so the path is
// rebuilt by regenerating each frame and clicking move next-1 of every
// frame but the top one. A limited pass (search.go) saves its whole
// transposition table: where it stops depends on its node count, which
// depends on the table, so a resumed pass needs the same table to stop at
// the same place. The unlimited last pass keeps only the most recent dead
// states (at most savedDeadBytes); the search rebuilds the rest. There any
// subset of dead states gives the same answer (a dead state holds no win,
// so pruning it never changes which line is found first), only more or
// less re-search. The checksum guards against a damaged blob injecting
// false dead states.
const payloadMagic = "SH\x02"

// savedDeadBytes bounds the dead states of the unlimited pass written into
// one checkpoint.
const savedDeadBytes = 512 << 10

// maxSavedDead is how many dead states a checkpoint of the current pass
// may hold: a limited pass records at most one per node.
func (s *search) maxSavedDead() int {
	if l := s.sched.limit(s.pass); l > 0 {
		return int(l)
	}
	return savedDeadBytes / (8 * s.dead.w)
}

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
	buf = binary.AppendUvarint(buf, uint64(s.pass))
	buf = binary.AppendUvarint(buf, uint64(s.passNodes))
	buf = binary.AppendUvarint(buf, uint64(len(s.frames)))
	for _, f := range s.frames {
		buf = binary.AppendUvarint(buf, uint64(f.next-f.start))
	}
	buf = binary.AppendUvarint(buf, uint64(len(s.best)))
	for _, t := range s.best {
		buf = binary.AppendUvarint(buf, uint64(t))
	}
	d := s.dead
	k := min(d.len(), s.maxSavedDead())
	buf = binary.AppendUvarint(buf, uint64(k))
	for _, word := range d.keys[(d.len()-k)*d.w:] {
		buf = binary.LittleEndian.AppendUint64(buf, word)
	}
	return binary.LittleEndian.AppendUint64(buf, checksum(buf))
}

func checksum(b []byte) uint64 {
	h := fnv.New64a()
	h.Write(b)
	return h.Sum64()
}

// resume restores the DFS from a payload written by encode.
func (s *search) resume(p []byte) error {
	r := payloadReader{b: p}
	if len(p) < len(payloadMagic)+16 || string(p[:len(payloadMagic)]) != payloadMagic {
		return fmt.Errorf("%w: unknown version", errPayload)
	}
	body := p[:len(p)-8]
	if binary.LittleEndian.Uint64(p[len(body):]) != checksum(body) {
		return fmt.Errorf("%w: checksum mismatch", errPayload)
	}
	p = body
	r.b = p[len(payloadMagic):]
	if binary.LittleEndian.Uint64(r.b) != s.fp {
		return fmt.Errorf("%w: written for another level", errPayload)
	}
	r.b = r.b[8:]
	s.pass = r.next(s.sched.restarts + 2)
	nodesLimit := 1 << 62
	if l := s.sched.limit(s.pass); l > 0 {
		nodesLimit = int(l) + 1
	}
	s.passNodes = int64(r.next(nodesLimit))
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
	if err := s.resumeDead(&r); err != nil {
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

func (s *search) resumeDead(r *payloadReader) error {
	d := s.dead
	k := r.next(s.maxSavedDead() + 1)
	if r.err != nil || len(r.b) < 8*k*d.w {
		return fmt.Errorf("%w: dead states truncated", errPayload)
	}
	n := len(s.b.l.tiles)
	key := make([]uint64, d.w)
	for range k {
		h := uint64(0)
		for j := range key {
			key[j] = binary.LittleEndian.Uint64(r.b)
			r.b = r.b[8:]
			for bits := key[j]; bits != 0; bits &= bits - 1 {
				i := j*64 + mathbits.TrailingZeros64(bits)
				if i >= n {
					return fmt.Errorf("%w: dead state names tile %d", errPayload, i)
				}
				h ^= s.b.zob[i]
			}
		}
		if !d.contains(h, key) {
			d.add(h, key)
		}
	}
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
