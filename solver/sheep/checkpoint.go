package sheep

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"iter"
	mathbits "math/bits"
	"slices"
)

// Checkpoint payload (inside the solver.Meter envelope), version 13:
//
//	"SH" 0x0d | level fingerprint (8 bytes, FNV-64a of the canonical JSON)
//	| uvarint pass | uvarint nodes of the pass so far
//	| uvarint deferred beams (bit k: the schedule's beam k; bit
//	  len(beams): its far beams, search.farBit)
//	| uvarint frames | per frame: uvarint (next move index within frame)
//	| uvarint len(best) | best line as uvarint tile indices
//	| dead states: 0x00 (as they are) or 0x01 (flate) | uvarint length |
//	  that many bytes, which hold (inflated) uvarint groups | per group:
//	  work class (workClass, a byte) | states (4 bytes, little-endian) |
//	  each state as the tiles in which its removed set differs from the
//	  previous one's (the first of all: from the empty set): uvarint
//	  count, then uvarint gaps between tile indices
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
// are rejected and the worker starts afresh. Version 8 (sheep/9)
// groups the dead states by the work their proofs took, so a resumed
// unlimited pass keeps its costliest states and knows what they cost
// (encodeDead); version 7 payloads are rejected. Version 9 (sheep/10)
// has the layout of version 8, but the schedule has three more beams
// (beams of 1000 before the beam of 2000) and runs the deferred ones at
// another node count of the unlimited pass: a version 8 payload's
// deferred set names other beams, and its node count may lie past the
// point where they run. Version 8 payloads are rejected. Version 10
// (sheep/11) has the layout of version 9, but every pass after the beam
// phase cuts at the endgame table's depth (endgame.go): a limited pass
// stops elsewhere, and a version 9 path may run below that depth.
// Version 9 payloads are rejected. Version 11 (sheep/12) has the layout
// of version 10, but those passes and beams also cut above the table's
// depth (reach, endgame.go): version 10 payloads are rejected. sheep/13
// still writes version 11: its own search is sheep/12's, and the runs of
// its helper's exact pass (exactrun.go) are a function of the pass's node
// count, so a payload needs nothing more to resume one. sheep/14 still
// writes version 11. Version 12 (sheep/15) has the layout of version 11,
// but the schedule has two more beams (beams of 1000 that weigh the
// endgame states within reach, before the beam of 2000): a version 11
// payload's deferred set names other beams. Version 11 payloads are
// rejected. Version 13 (sheep/17) has the layout of version 12, but the
// deferred set has one more bit, the far beams the unlimited pass runs
// after farAt nodes (search.farBit): a search resumed from a version 12
// payload would not run them. Version 12 payloads are rejected.
//
// Move lists are a pure function of the state and the pass, so the path is
// rebuilt by regenerating each frame and clicking move next-1 of every
// frame but the top one. A limited pass (search.go) saves its whole
// transposition table: where it stops depends on its node count, which
// depends on the table, so a resumed pass needs the same table to stop at
// the same place. The unlimited last pass keeps the costliest dead states
// that fit in savedDeadBytes; the search rebuilds the rest. Dead states
// found one after the other lie close in the DFS and differ in a few
// tiles, so the difference code takes a few bytes per state instead of a
// bitset of the whole level (40 bytes at 300 tiles). There any
// subset of dead states gives the same answer (a dead state holds no win,
// so pruning it never changes which line is found first), only more or
// less re-search. The checksum guards against a damaged blob injecting
// false dead states.
const payloadMagic = "SH\x0d"

// savedDeadBytes bounds the dead states of the unlimited pass written into
// one checkpoint, compressed (payloads stay under the 1.3 MB that sheep/2
// wrote on 300 tiles). On L255 deals 0, 3 and 7 (tables of up to 1.5M
// states), stopped at 30, 60 and 90 % of their nodes and resumed, the
// resumed searches redo 1.4 % of the nodes in all (at most 4.9 %); with
// the newest 1 MB of states uncompressed, as before payload version 8,
// 19.5 % (at most 55 %). BenchmarkResume measures it.
const savedDeadBytes = 1 << 20

// maxDeadRaw bounds the dead states of a checkpoint of the current pass
// before compression, so a payload cannot make a resume inflate without
// end: 32 MB for the unlimited pass, and room for the whole table of a
// limited pass (at most one state per node, each at most 2 bytes per tile
// and 2 for its count; in practice a few bytes).
func (s *search) maxDeadRaw() int {
	if l := s.sched.limit(s.pass); l > 0 {
		return 1 + workClasses*5 + int(l)*(2+2*len(s.b.l.tiles))
	}
	return 32 << 20
}

// maxSavedDead is how many dead states a checkpoint of the current pass
// may hold: a limited pass records at most one per node, and a state
// takes at least two bytes (a count and a tile).
func (s *search) maxSavedDead() int {
	if l := s.sched.limit(s.pass); l > 0 {
		return int(l)
	}
	return s.maxDeadRaw() / 2
}

// workClasses is the number of work classes: class c > 0 holds the dead
// states whose proofs took [2^(c-1), 2^c) nodes, class 0 those whose work
// is not known (a limited pass's, which never evicts).
const workClasses = 33

func workClass(w uint32) int { return mathbits.Len32(w) }

// classWork is the least work of class c, what a resumed table records.
func classWork(c int) int64 {
	if c == 0 {
		return 0
	}
	return 1 << (c - 1)
}

// encodeDead appends the dead states in groups of one work class each,
// compressed (flate: the difference code of 1 MB shrinks to about 0.45 MB).
// A limited pass writes its whole table, newest first, as one group of
// class 0. The unlimited pass writes the states whose proofs took the
// most nodes, class by class from the costliest, each class newest
// first, as many as fit in savedDeadBytes once compressed: a state the
// resumed search meets again and has forgotten costs about its work to
// prove again, and the cheap states near the leaves are most of the
// table (sheep/8 kept the newest states instead; see BenchmarkResume).
func (s *search) encodeDead(buf []byte) []byte {
	return s.appendDead(buf, savedDeadBytes)
}

// appendDead is encodeDead with the unlimited pass's budget in bytes.
func (s *search) appendDead(buf []byte, budget int) []byte {
	if s.sched.limit(s.pass) > 0 {
		groups, _ := s.deadGroups(s.maxDeadRaw())
		return s.appendDeflated(buf, groups)
	}
	if s.sched.newestDead { // as sheep/8 wrote them, uncompressed
		groups, _ := s.deadGroups(budget)
		return appendStored(buf, groups)
	}
	// How much the states shrink is known once they are compressed:
	// guess from the last checkpoint, then correct the guess until the
	// compressed states fill most of the budget or all of them fit.
	raw := int(float64(budget) * max(s.deadShrink*0.95, 2))
	var best []byte
	for range 6 {
		groups, cut := s.deadGroups(min(raw, s.maxDeadRaw()))
		z := s.appendDeflated(nil, groups)
		if len(z) <= budget && len(z) > len(best) {
			best, s.deadShrink = z, float64(len(groups))/float64(len(z))
		}
		if len(z) <= budget && (!cut || len(z) >= budget*7/8 || raw >= s.maxDeadRaw()) {
			break
		}
		raw = int(float64(raw) * float64(budget) / float64(len(z)) * 0.94)
	}
	if best == nil { // states that do not shrink: as many as fit raw
		// (flate adds 5 bytes per 64 KB to what it cannot shrink)
		groups, _ := s.deadGroups(budget - budget/1024 - 64)
		best = s.appendDeflated(nil, groups)
	}
	return append(buf, best...)
}

// appendDeflated appends p behind a method byte and its length: as it is
// (0) when short, compressed with flate (1) otherwise. Short ones are most
// checkpoints of small levels, and tests checkpoint those at every node:
// a compressor costs about a megabyte to set up. The search keeps its own.
func (s *search) appendDeflated(buf, p []byte) []byte {
	if len(p) < deflateFrom {
		return appendStored(buf, p)
	}
	var z bytes.Buffer
	if s.deflater == nil {
		s.deflater, _ = flate.NewWriter(&z, flate.BestSpeed) // a valid level: no error
	} else {
		s.deflater.Reset(&z)
	}
	s.deflater.Write(p) // bytes.Buffer does not fail
	s.deflater.Close()
	buf = append(buf, 1)
	buf = binary.AppendUvarint(buf, uint64(z.Len()))
	return append(buf, z.Bytes()...)
}

// appendStored appends p as it is (method 0) behind its length.
func appendStored(buf, p []byte) []byte {
	buf = append(buf, 0)
	buf = binary.AppendUvarint(buf, uint64(len(p)))
	return append(buf, p...)
}

// deflateFrom is the size from which dead states are compressed.
const deflateFrom = 4 << 10

// deadGroups encodes the dead states (see encodeDead) in at most budget
// bytes; cut reports whether some were left out.
func (s *search) deadGroups(budget int) (groups []byte, cut bool) {
	d := s.dead
	n := d.len()
	newest := func(yield func(int32) bool) { // entries, newest first
		// Entries are appended, and once the table is full an eviction
		// writes the new entry just behind the ring cursor.
		for j := 1; j <= n; j++ {
			if !yield(int32((d.cursor - j + n) % n)) {
				return
			}
		}
	}
	body := make([]byte, binary.MaxVarintLen64, min(budget, 64+6*n))
	count := 0
	prev := make([]uint64, d.w)
	// group encodes the entries of one class until the budget is spent;
	// it reports whether there is room for more.
	group := func(class int, entries iter.Seq[int32]) bool {
		head := len(body)
		body = append(body, byte(class), 0, 0, 0, 0)
		k, full := 0, false
		for e := range entries {
			key := d.keys[int(e)*d.w : (int(e)+1)*d.w]
			mark := len(body)
			body = appendDiff(body, prev, key)
			if len(body) > budget {
				body, full = body[:mark], true
				break
			}
			copy(prev, key)
			k++
		}
		if k == 0 {
			body = body[:head]
		} else {
			binary.LittleEndian.PutUint32(body[head+1:], uint32(k))
			count++
		}
		cut = cut || full
		return !full
	}
	if s.sched.limit(s.pass) > 0 || s.sched.newestDead {
		group(0, newest)
	} else {
		for c, entries := range d.byWork(budget / 2) {
			if !group(c, slices.Values(entries)) {
				break
			}
		}
	}
	// The group count goes in front, in the room left for it.
	head := binary.PutUvarint(body, uint64(count))
	start := binary.MaxVarintLen64 - head
	copy(body[start:], body[:head])
	return body[start:], cut
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
	if s.sched.limit(s.pass) == 0 {
		// The run, and so the move order, the saved line was found in.
		s.exactRun = s.sched.exactRunAt(s.passNodes)
	}
	s.deferred = uint64(r.next(1 << (len(s.sched.beams) + 1))) // and farBit
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

func (s *search) resumeDead(pr *payloadReader) error {
	method := pr.next(2)
	raw := pr.lengthPrefixed()
	if pr.err != nil {
		return pr.err
	}
	if method == 1 {
		var err error
		limit := s.maxDeadRaw()
		raw, err = io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(raw)), int64(limit)+1))
		if err != nil || len(raw) > limit {
			return fmt.Errorf("%w: dead states do not inflate", errPayload)
		}
	}
	r := &payloadReader{b: raw}
	d := s.dead
	groups := r.next(workClasses + 1)
	n := len(s.b.l.tiles)
	key := make([]uint64, d.w)
	h := uint64(0)
	var keys, hashes []uint64
	var works []int64
	total := 0
	for range groups {
		class := r.next(workClasses)
		if r.err != nil || len(r.b) < 4 {
			return fmt.Errorf("%w: dead states truncated", errPayload)
		}
		k := int(binary.LittleEndian.Uint32(r.b))
		r.b = r.b[4:]
		if k > s.maxSavedDead()-total {
			return fmt.Errorf("%w: too many dead states", errPayload)
		}
		total += k
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
			works = append(works, classWork(class))
		}
	}
	// Oldest first, as the table held them: the next checkpoint of a
	// limited pass then writes the same bytes as an uninterrupted run's.
	for e := len(hashes) - 1; e >= 0; e-- {
		if key := keys[e*d.w : (e+1)*d.w]; !d.contains(hashes[e], key) {
			d.add(hashes[e], key, works[e])
		}
	}
	if r.err == nil && len(r.b) != 0 {
		r.err = fmt.Errorf("%w: trailing bytes after the dead states", errPayload)
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

// lengthPrefixed reads a uvarint length and that many bytes.
func (r *payloadReader) lengthPrefixed() []byte {
	n := r.next(len(r.b)) // at least one byte is the length's
	if r.err == nil && n > len(r.b) {
		r.err = fmt.Errorf("%w: %d bytes announced, %d left", errPayload, n, len(r.b))
	}
	if r.err != nil {
		return nil
	}
	p := r.b[:n]
	r.b = r.b[n:]
	return p
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
	sub := r.lengthPrefixed()
	if r.err != nil {
		return r.err
	}
	c.sub = s.newProjection(closure(s.b.l))
	if err := c.sub.resume(sub); err != nil {
		return fmt.Errorf("projection: %w", err)
	}
	return nil
}
