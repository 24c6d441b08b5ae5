package zuma

import (
	"encoding/binary"
	"errors"
	"slices"
	"sync"

	"github.com/puzzled/puzzled/solver"
)

// IDA* for the hand and unlimited modes: depth-first searches with bound
// d = lower bound, lower bound + 1, …; a node with g moves played and
// admissible bound h is cut when g + h > d. The first bound with a
// solution gives the fewest insertions, and short solutions come first.
//
// States are canonical: the board plus the hand as counts (a sorted
// multiset), so transpositions meet in the table. The table only caches
// bounds and facts "no solution within r more moves", so it never changes
// which solution is found first: results do not depend on it, which is
// what lets a resumed search start with an empty table.

// state is a search state: board and, in hand mode, the hand left.
type state struct {
	board []byte
	hand  [26]int8
}

type child struct {
	mv move
	state
	h int
}

type frame struct {
	state
	g    int
	kids []child
	next int // index of the next kid to try; kids[next-1] is on the stack above
}

type ttEntry struct {
	h    int16 // a lower bound of the state's bound; the bound itself if full
	full bool
	fail int8 // largest r with no solution within r moves; -1 if none
}

// ttMax caps the table; beyond it states are not added (results do not
// depend on the table).
const ttMax = 1 << 20

type ida struct {
	m         *solver.Meter
	unlimited bool
	bd        *bounder
	tt        map[string]ttEntry
	key       []byte
	moves     []move  // scratch of expand
	kids      []child // scratch of expand
	stack     []frame
	bound     int
}

type idaOutcome int

const (
	idaExhausted idaOutcome = iota // every bound up to hi failed
	idaFound
	idaStopped // budget or ctx
)

// idaPayloadVersion 2: the children lists of zuma/2 (stronger hand bound).
const idaPayloadVersion = 2

var errResume = errors.New("zuma: resume blob does not match this level and solver")

// idas recycles searches (table, buffers) between solves; see bounders.
var idas = sync.Pool{New: func() any { return &ida{tt: make(map[string]ttEntry)} }}

func newIDA(m *solver.Meter, unlimited bool) *ida {
	s := idas.Get().(*ida)
	s.m, s.unlimited, s.bd = m, unlimited, bounders.Get().(*bounder)
	return s
}

// ttKeep is the largest table a recycled search keeps (cleared).
const ttKeep = 1 << 12

// release hands s back for reuse; s must not be used afterwards.
func (s *ida) release() {
	bounders.Put(s.bd)
	s.bd, s.m = nil, nil
	if len(s.tt) > ttKeep {
		s.tt = make(map[string]ttEntry)
	} else {
		clear(s.tt)
	}
	clear(s.stack[:cap(s.stack)])
	s.stack, s.bound = s.stack[:0], 0
	idas.Put(s)
}

// h returns the bound of a non-empty state when it is at most r, and
// otherwise some lower bound of it above r. The table keeps what is
// known, and a kept child (h ≤ r) always gets the bound itself: the
// children lists never depend on the table.
func (s *ida) h(st *state, r int) int {
	key := s.stateKey(st)
	e, ok := s.tt[string(key)]
	if ok && (e.full || int(e.h) > r) {
		return int(e.h)
	}
	h, full := 0, true
	switch {
	case s.unlimited:
		h = s.bd.bound(st.board, nil)
	case countShort(st.board, &st.hand):
		h = inf // what the bound gives then too, without the DP
	default:
		h, full = s.bd.handBoundAbove(st.board, &st.hand, r)
	}
	h = min(h, inf)
	if !ok {
		if len(s.tt) >= ttMax {
			return h
		}
		e.fail = -1
	}
	e.h, e.full = int16(h), full
	s.tt[string(key)] = e
	return h
}

func (s *ida) stateKey(st *state) []byte {
	k := append(s.key[:0], st.board...)
	if !s.unlimited {
		k = append(k, '|')
		for c, n := range st.hand {
			for range n {
				k = append(k, byte('A'+c))
			}
		}
	}
	s.key = k
	return k
}

func (s *ida) failed(st *state, r int) bool {
	e, ok := s.tt[string(s.stateKey(st))]
	return ok && int(e.fail) >= r
}

func (s *ida) markFailed(st *state, r int) {
	key := s.stateKey(st)
	e, ok := s.tt[string(key)]
	if !ok {
		if len(s.tt) >= ttMax {
			return
		}
		e = ttEntry{fail: -1} // bound not known yet
	}
	if r > int(e.fail) {
		e.fail = int8(r)
		s.tt[string(key)] = e
	}
}

// expand lists the children of st (g moves played) whose g+1+h fits the
// current bound, best bound first. It depends only on st, g and the bound,
// never on the table's failure facts, so a resumed search rebuilds the
// same lists.
func (s *ida) expand(st state, g int) frame {
	var buf [27]byte
	colors := buf[:0]
	if s.unlimited {
		colors = boardColors(colors, st.board)
		if c := freshColor(st.board); c != 0 {
			colors = append(colors, c)
		}
	} else {
		for c, n := range st.hand {
			if n > 0 {
				colors = append(colors, byte('A'+c))
			}
		}
	}
	moves := s.moves[:0]
	for _, c := range colors {
		moves = appendMoves(moves, st.board, c)
	}
	s.moves = moves
	f := frame{state: st, g: g}
	// The kept children's boards share one array.
	n := len(st.board) + 1
	boards := make([]byte, 0, len(moves)*n)
	kids := s.kids[:0]
	for _, mv := range moves {
		if s.m.Stopped() { // a child's bound can take milliseconds; callers drop the cut frame
			break
		}
		nb, _ := insert(boards[len(boards):len(boards):len(boards)+n], st.board, mv.at, mv.ball)
		ch := child{mv: mv, state: state{board: nb, hand: st.hand}}
		if !s.unlimited {
			ch.hand[mv.ball-'A']--
		}
		if len(nb) > 0 {
			ch.h = s.h(&ch.state, s.bound-g-1)
		}
		if g+1+ch.h <= s.bound {
			kids = append(kids, ch)
			boards = boards[:len(boards)+len(nb)]
		}
	}
	s.kids = kids
	f.kids = slices.Clone(kids)
	slices.SortStableFunc(f.kids, func(a, b child) int { return a.h - b.h })
	return f
}

// run searches bounds lo..hi from root, resuming from payload if non-nil.
func (s *ida) run(root state, lo, hi int, payload []byte) (idaOutcome, []move, error) {
	var resume []int
	if payload != nil {
		bound, next, err := decodeIDAPayload(payload, s.unlimited)
		if err != nil {
			return 0, nil, err
		}
		if bound < lo || bound > hi {
			return 0, nil, errResume
		}
		lo, resume = bound, next
	}
	for s.bound = lo; s.bound <= hi; s.bound++ {
		if resume != nil {
			if err := s.rebuild(root, resume); errors.Is(err, errStoppedInRebuild) {
				return idaStopped, nil, nil // the stored checkpoint stays the latest
			} else if err != nil {
				return 0, nil, err
			}
			resume = nil
		} else {
			if s.m.Tick() {
				s.stack = s.stack[:0]
				s.m.Checkpoint(s.payload())
				return idaStopped, nil, nil
			}
			s.stack = append(s.stack[:0], s.expand(root, 0))
			if s.m.Stopped() { // the root's frame may be cut short
				s.stack = s.stack[:0]
				s.m.Checkpoint(s.payload())
				return idaStopped, nil, nil
			}
		}
		out, plan := s.dfs()
		if out != idaExhausted {
			return out, plan, nil
		}
	}
	return idaExhausted, nil, nil
}

// dfs runs the current bound from the stack.
func (s *ida) dfs() (idaOutcome, []move) {
	for len(s.stack) > 0 {
		top := &s.stack[len(s.stack)-1]
		if top.next == len(top.kids) {
			s.markFailed(&top.state, s.bound-top.g)
			s.stack = s.stack[:len(s.stack)-1]
			continue
		}
		ch := &top.kids[top.next]
		top.next++
		if len(ch.board) == 0 {
			return idaFound, s.plan(ch.mv)
		}
		if s.failed(&ch.state, s.bound-top.g-1) {
			continue
		}
		if s.m.Tick() {
			top.next--
			s.m.Checkpoint(s.payload())
			return idaStopped, nil
		}
		f := s.expand(ch.state, top.g+1)
		if s.m.Stopped() { // f may be cut short: drop it, as if Tick had stopped
			top.next--
			s.m.Checkpoint(s.payload())
			return idaStopped, nil
		}
		s.stack = append(s.stack, f)
		if s.m.CheckpointDue() {
			s.m.Checkpoint(s.payload())
		}
	}
	return idaExhausted, nil
}

func (s *ida) plan(last move) []move {
	var plan []move
	for i := range s.stack {
		f := &s.stack[i]
		if i+1 < len(s.stack) {
			plan = append(plan, f.kids[f.next-1].mv)
		}
	}
	return append(plan, last)
}

// payload: version, mode, bound, stack depth, next index of each frame.
func (s *ida) payload() []byte {
	p := []byte{idaPayloadVersion, modeByte(s.unlimited)}
	p = binary.AppendUvarint(p, uint64(s.bound))
	p = binary.AppendUvarint(p, uint64(len(s.stack)))
	for i := range s.stack {
		p = binary.AppendUvarint(p, uint64(s.stack[i].next))
	}
	return p
}

func modeByte(unlimited bool) byte {
	if unlimited {
		return 'u'
	}
	return 'h'
}

func decodeIDAPayload(p []byte, unlimited bool) (bound int, next []int, err error) {
	if len(p) < 2 || p[0] != idaPayloadVersion || p[1] != modeByte(unlimited) {
		return 0, nil, errResume
	}
	r := uvarintReader{p: p[2:]}
	bound = r.int(64)
	depth := r.int(64)
	next = make([]int, 0, depth)
	for range depth {
		next = append(next, r.int(1<<20))
	}
	if r.bad || len(r.p) != 0 {
		return 0, nil, errResume
	}
	return bound, next, nil
}

// rebuild re-expands the stack recorded in a payload.
// errStoppedInRebuild: the budget or ctx ended while a resume rebuilt its
// frames (each expand computes a bound per child); the frames may be cut
// short, so the search stops without a new checkpoint.
var errStoppedInRebuild = errors.New("zuma: stopped while rebuilding the resumed search")

func (s *ida) rebuild(root state, next []int) error {
	s.stack = s.stack[:0]
	if len(next) == 0 {
		s.stack = append(s.stack, s.expand(root, 0))
		if s.m.Stopped() {
			return errStoppedInRebuild
		}
		return nil
	}
	st, g := root, 0
	for i, n := range next {
		f := s.expand(st, g)
		if s.m.Stopped() {
			return errStoppedInRebuild
		}
		last := i+1 == len(next)
		if n > len(f.kids) || (!last && n < 1) {
			return errResume
		}
		f.next = n
		s.stack = append(s.stack, f)
		if !last {
			st, g = f.kids[n-1].state, g+1
			if len(st.board) == 0 {
				return errResume
			}
		}
	}
	return nil
}

type uvarintReader struct {
	p   []byte
	bad bool
}

func (r *uvarintReader) int(limit uint64) int {
	v, n := binary.Uvarint(r.p)
	if n <= 0 || v > limit {
		r.bad = true
		return 0
	}
	r.p = r.p[n:]
	return int(v)
}
