package columns

import (
	"encoding/binary"
	"errors"
)

// Checkpoint payloads (inside the solver.Meter envelope):
//
//	DFS:  "D" 1, path, best, best line
//	beam: "B" 2, round, best, best line, found, goal line (the finished
//	      rounds), then the current round: piece index, best, best line,
//	      beam nodes, history
//
// Lines and paths are a uvarint length and one byte per move (col*3+rot);
// numbers are varints. Version 1 beam payloads (columns/1, one round) are
// rejected: the worker then starts afresh.
const (
	payloadVersion     = 1
	beamPayloadVersion = 2
)

// ErrBadCheckpoint is returned when a resume blob does not fit the level.
var ErrBadCheckpoint = errors.New("columns: resume blob does not match this level or solver")

type encoder struct{ b []byte }

func (e *encoder) uint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *encoder) int(v int64)   { e.b = binary.AppendVarint(e.b, v) }
func (e *encoder) bytes(p []byte) {
	e.uint(uint64(len(p)))
	e.b = append(e.b, p...)
}

type decoder struct {
	b   []byte
	err bool
}

func (d *decoder) uint(limit uint64) uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 || v > limit {
		d.err = true
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) int() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.err = true
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) bytes(limit int) []byte {
	n := int(d.uint(uint64(limit)))
	if d.err || n > len(d.b) {
		d.err = true
		return nil
	}
	p := append([]byte{}, d.b[:n]...)
	d.b = d.b[n:]
	return p
}

func (d *decoder) byte() byte {
	if len(d.b) == 0 {
		d.err = true
		return 0
	}
	v := d.b[0]
	d.b = d.b[1:]
	return v
}

func encodeDFS(path []uint8, best int64, bestLine []uint8) []byte {
	e := encoder{b: []byte{'D', payloadVersion}}
	e.bytes(path)
	e.int(best)
	e.bytes(bestLine)
	return e.b
}

// decodeDFS reads a DFS payload and checks every move against the level.
func decodeDFS(l *Level, p []byte) (path []uint8, best int64, bestLine []uint8, err error) {
	if len(p) < 2 || p[0] != 'D' || p[1] != payloadVersion {
		return nil, 0, nil, ErrBadCheckpoint
	}
	d := decoder{b: p[2:]}
	path = d.bytes(len(l.pieces))
	best = d.int()
	bestLine = d.bytes(len(l.pieces))
	if d.err || len(d.b) != 0 || !validLine(l, path) || !validLine(l, bestLine) {
		return nil, 0, nil, ErrBadCheckpoint
	}
	return path, best, bestLine, nil
}

// validLine checks that every move of line is one the searches generate.
func validLine(l *Level, line []uint8) bool {
	lists := moveLists(l)
	for i, mv := range line {
		ok := false
		for _, m := range lists[i] {
			ok = ok || m == mv
		}
		if !ok {
			return false
		}
	}
	return true
}

func (a *anytime) encode() []byte {
	e := encoder{b: []byte{'B', beamPayloadVersion}}
	e.uint(uint64(a.round))
	e.int(a.best)
	e.bytes(a.bestLine)
	found := byte(0)
	if a.found {
		found = 1
	}
	e.b = append(e.b, found)
	e.bytes(a.goalLine)
	a.bm.encode(&e)
	return e.b
}

// decode restores an anytime payload into a, checking it against the level.
func (a *anytime) decode(p []byte) error {
	if len(p) < 2 || p[0] != 'B' || p[1] != beamPayloadVersion {
		return ErrBadCheckpoint
	}
	l := a.l
	d := decoder{b: p[2:]}
	a.round = int(d.uint(64))
	a.best = d.int()
	a.bestLine = d.bytes(len(l.pieces))
	found := d.byte()
	a.goalLine = d.bytes(len(l.pieces))
	if d.err || found > 1 || !validLine(l, a.bestLine) || !validLine(l, a.goalLine) {
		return ErrBadCheckpoint
	}
	a.found = found == 1
	if a.found {
		a.goal = lineScore(l, a.goalLine)
	}
	a.bm = a.newRound()
	return a.bm.decode(&d)
}

func (bm *beam) encode(e *encoder) {
	e.uint(uint64(bm.idx))
	e.int(bm.best)
	e.bytes(bm.bestLine)
	e.uint(uint64(len(bm.cur)))
	w := bm.g.w
	for k := range bm.cur {
		n := &bm.cur[k]
		e.int(n.score)
		e.b = append(e.b, byte(n.t.c), byte(n.t.r))
		e.b = append(e.b, n.b.h[:w]...)
		for c := 0; c < w; c++ {
			e.b = append(e.b, n.b.cells[c*stride:c*stride+int(n.b.h[c])]...)
		}
	}
	for _, hs := range bm.hist {
		e.uint(uint64(len(hs)))
		for _, s := range hs {
			e.uint(uint64(s.parent))
			e.b = append(e.b, s.move)
		}
	}
}

// decode restores the current round's beam from d, checking it against
// the level.
func (bm *beam) decode(d *decoder) error {
	l, g := bm.l, bm.g
	bm.idx = int(d.uint(uint64(len(l.pieces))))
	bm.best = d.int()
	bm.bestLine = d.bytes(len(l.pieces))
	nb := int(d.uint(uint64(bm.width)))
	if d.err || !validLine(l, bm.bestLine) || nb == 0 || bm.idx == 0 && nb != 1 {
		return ErrBadCheckpoint
	}
	bm.cur = make([]bnode, nb)
	for k := range bm.cur {
		if !decodeNode(d, &bm.cur[k], g, l.initialTarget()) {
			return ErrBadCheckpoint
		}
	}
	bm.hist = make([][]step, bm.idx)
	prev := 1
	for i := range bm.hist {
		n := int(d.uint(uint64(bm.width)))
		bm.hist[i] = make([]step, n)
		for j := range bm.hist[i] {
			par := int(d.uint(uint64(prev)))
			mv := d.byte()
			if d.err || par >= prev || int(mv) >= 3*g.w {
				return ErrBadCheckpoint
			}
			bm.hist[i][j] = step{parent: int32(par), move: mv}
		}
		prev = n
	}
	if d.err || len(d.b) != 0 || prev != nb && bm.idx > 0 {
		return ErrBadCheckpoint
	}
	return nil
}

func decodeNode(d *decoder, n *bnode, g *geom, t0 target) bool {
	n.score = d.int()
	n.t.c, n.t.r = int8(d.byte()), int8(d.byte())
	for c := 0; c < g.w; c++ {
		h := d.byte()
		if int(h) > g.h {
			return false
		}
		n.b.h[c] = h
	}
	for c := 0; c < g.w; c++ {
		for r := 0; r < int(n.b.h[c]); r++ {
			v := d.byte()
			if v == 0 || v > 26 {
				return false
			}
			n.b.cells[c*stride+r] = v
		}
	}
	if n.t.c != t0.c || t0.c < 0 && n.t.r != t0.r || t0.c >= 0 && (n.t.r < 0 || n.t.r >= int8(n.b.h[n.t.c])) {
		return false
	}
	return !d.err
}
