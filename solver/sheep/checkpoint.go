package sheep

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	mathbits "math/bits"
)

// Checkpoint payload (inside the solver.Meter envelope), version 7:
//
//	"SH" 0x07 | level fingerprint (8 bytes, FNV-64a of the canonical JSON)
//	| uvarint pass | uvarint nodes of the pass so far
//	| uvarint deferred beams (bit k: the schedule's beam k)
//	| uvarint frames | per frame: uvarint (next move index within frame)
//	| uvarint len(best) | best line as uvarint tile indices
//	| uvarint dead states | each, newest first, as the tiles in which its
//	  removed set differs from the previous one's (the first: from the
//	  empty set): uvarint count, then uvarint gaps between tile indices
//	| projection phase: 0x00 (none) or 0x01 | uvarint subset size
//	  | uvarint subset mask | uvarint nodes spent on earlier subsets
//	  | uvarint earlier subsets
//	  | 0x00 (projection search not started) or 0x01 | uvarint length
//	  | the projection search's own payload (this format)
//	| FNV-64a checksum of everything before (8 bytes)
//
// Version 3 (sheep/3) added the projection phase. Version 4 (sheep/4) has
// the same layout, but its searches prune with the tray-pressure bound, so
// a version 3 path or node count means something else. Version 5
// (sheep/5) has the same layout again, but large levels run beams after
// pass 0 and 32 restarts instead of 128: a version 4 pass number names
// another pass (its pass 40 was a restart, pass 40 is now the unlimited
// pass, which would read the saved path in another move order and skip
// moves never tried). Version 6 (sheep/6) has the same layout, but the
// move lists of the unlimited pass leave out the asleep moves (sleep.go),
// so a version 5 frame's move index names another move. Older payloads
// are rejected as an unknown version, and the worker starts afresh.
// sheep/7 still writes version 6: it changed only the beams (wider, with
// a per-parent cap), which keep no state in checkpoints. A payload saved
// in pass 0 makes a resumed search run the beams again from the start,
// the new ones under sheep/7; passes, move lists and tables are those of
// sheep/6, so a sheep/6 payload means the same to sheep/7 and vice versa.
// Version 7 (sheep/8) adds the beams the beam phase deferred to the
// unlimited pass (schedule.lateBeams): the beam phase decides them, and a
// search resumed after it cannot know them otherwise. Version 6 payloads
// are rejected and the worker starts afresh.
//
// Move lists are a pure function of the state and the pass, so the path is
// rebuilt by regenerating each frame and clicking move next-1 of every
// frame but the top one. A limited pass (search.go) saves its whole
// transposition table: where it stops depends on its node count, which
// depends on the table, so a resumed pass needs the same table to stop at
// the same place. The unlimited last pass keeps the most recent dead
// states that fit in savedDeadBytes; the search rebuilds the rest. Dead
// states found one after the other lie close in the DFS and differ in a
// few tiles, so the difference code takes a few bytes per state instead
// of a bitset of the whole level (40 bytes at 300 tiles). There any
// subset of dead states gives the same answer (a dead state holds no win,
// so pruning it never changes which line is found first), only more or
// less re-search. The checksum guards against a damaged blob injecting
// false dead states.
const payloadMagic = "SH\x07"

// savedDeadBytes bounds the dead states of the unlimited pass written into
// one checkpoint. With sleep sets the unlimited pass proves about one dead
// state per 1.3 nodes instead of one per 4, so 512 KB kept a smaller share
// of its table: after a kill -9 (TestChaosKillWorkerMidSearch) it redid
// 18.1 % of the nodes, with 1 MB 9.4 % (payloads stay under the 1.3 MB
// that sheep/2 wrote on 300 tiles).
const savedDeadBytes = 1 << 20

// maxSavedDead is how many dead states a checkpoint of the current pass
// may hold: a limited pass records at most one per node, and a state
// takes at least one byte.
func (s *search) maxSavedDead() int {
	if l := s.sched.limit(s.pass); l > 0 {
		return int(l)
	}
	return savedDeadBytes
}

// encodeDead appends the dead states: all of a limited pass's, the newest
// that fit in savedDeadBytes of the unlimited pass's.
func (s *search) encodeDead(buf []byte) []byte {
	d := s.dead
	budget := savedDeadBytes
	if s.sched.limit(s.pass) > 0 {
		budget = 1 << 62
	}
	var body []byte
	prev := make([]uint64, d.w)
	k := 0
	// Newest first: entries are appended, and once the table is full an
	// eviction writes the new entry just behind the ring cursor.
	n := d.len()
	for j := 1; j <= n; j++ {
		e := (d.cursor - j + n) % n
		key := d.keys[e*d.w : (e+1)*d.w]
		mark := len(body)
		body = appendDiff(body, prev, key)
		if len(body) > budget {
			body = body[:mark]
			break
		}
		copy(prev, key)
		k++
	}
	buf = binary.AppendUvarint(buf, uint64(k))
	return append(buf, body...)
}

// appendDiff appends the tiles in which key differs from prev.
func appendDiff(buf []byte, prev, key []uint64) []byte {
	count := 0
	for j := range key {
		count += mathbits.OnesCount64(prev[j] ^ key[j])
	}
	buf = binary.AppendUvarint(buf, uint64(count))
	last := 0
	for j := range key {
		for bits := prev[j] ^ key[j]; bits != 0; bits &= bits - 1 {
			i := j*64 + mathbits.TrailingZeros64(bits)
			buf = binary.AppendUvarint(buf, uint64(i-last))
			last = i
		}
	}
	return buf
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
	buf = binary.AppendUvarint(buf, s.deferred)
	buf = binary.AppendUvarint(buf, uint64(len(s.frames)))
	for _, f := range s.frames {
		buf = binary.AppendUvarint(buf, uint64(f.next-f.start))
	}
	buf = binary.AppendUvarint(buf, uint64(len(s.best)))
	for _, t := range s.best {
		buf = binary.AppendUvarint(buf, uint64(t))
	}
	buf = s.encodeDead(buf)
	buf = s.encodeProjection(buf)
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
	s.deferred = uint64(r.next(1 << len(s.sched.beams)))
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
		s.childSleep(f, mv)
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
	if err := s.resumeProjection(&r); err != nil {
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
	n := len(s.b.l.tiles)
	key := make([]uint64, d.w)
	h := uint64(0)
	var keys, hashes []uint64
	for range k {
		count := r.next(n + 1)
		i := 0
		for c := 0; c < count && r.err == nil; c++ {
			gap := r.next(n)
			i += gap
			if i >= n || (c > 0 && gap == 0) {
				return fmt.Errorf("%w: dead state names tile %d twice or out of range", errPayload, i)
			}
			key[i/64] ^= 1 << (uint(i) % 64)
			h ^= s.b.zob[i]
		}
		if r.err != nil {
			return fmt.Errorf("%w: dead states truncated", errPayload)
		}
		keys = append(keys, key...)
		hashes = append(hashes, h)
	}
	// Oldest first, as the table held them: the next checkpoint then
	// writes the same bytes as an uninterrupted run's.
	for e := len(hashes) - 1; e >= 0; e-- {
		if key := keys[e*d.w : (e+1)*d.w]; !d.contains(hashes[e], key) {
			d.add(hashes[e], key, 1)
		}
	}
	return r.err
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

// encodeProjection appends the projection phase (pass 0 only).
func (s *search) encodeProjection(buf []byte) []byte {
	c := s.cursor
	if c == nil || s.pass != 0 {
		return append(buf, 0)
	}
	buf = append(buf, 1)
	buf = binary.AppendUvarint(buf, uint64(c.size))
	buf = binary.AppendUvarint(buf, c.mask)
	buf = binary.AppendUvarint(buf, uint64(c.spent))
	buf = binary.AppendUvarint(buf, uint64(c.tried))
	if c.sub == nil {
		return append(buf, 0)
	}
	sub := c.sub.encode()
	buf = append(buf, 1)
	buf = binary.AppendUvarint(buf, uint64(len(sub)))
	return append(buf, sub...)
}

// resumeProjection restores the projection phase written by
// encodeProjection, checking it against the plan.
func (s *search) resumeProjection(r *payloadReader) error {
	flag := r.next(2)
	if r.err != nil || flag == 0 {
		return r.err
	}
	lo, hi := s.projectionRange()
	if s.pass != 0 || s.sched.proj.total == 0 || lo > hi {
		return fmt.Errorf("%w: projection phase outside pass 0", errPayload)
	}
	k := len(s.b.l.types)
	// size hi+1: every subset was tried (the phase is over, and beams
	// may have been running since).
	c := &projCursor{size: r.next(hi + 2)}
	c.mask = uint64(r.next(1 << k))
	c.spent = int64(r.next(int(s.sched.proj.total) + 1))
	c.tried = r.next(s.sched.proj.subsets + 1)
	if r.err != nil || c.size < lo || mathbits.OnesCount64(c.mask) != c.size {
		return fmt.Errorf("%w: bad projection subset", errPayload)
	}
	s.cursor = c
	if r.next(2) == 0 {
		return r.err
	}
	n := r.next(len(r.b) + 1)
	if r.err != nil {
		return r.err
	}
	c.sub = s.newProjection(closure(s.b.l))
	if err := c.sub.resume(r.b[:n]); err != nil {
		return fmt.Errorf("projection: %w", err)
	}
	r.b = r.b[n:]
	return nil
}
