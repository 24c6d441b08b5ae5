package zuma

import (
	"context"
	"encoding/binary"
	"sort"

	"github.com/puzzled/puzzled/solver"
)

// Ammo mode: a depth-first branch and bound over the shots. After k shots
// with board B, the balls vanished so far are len(board₀) + k - len(B),
// so (k, B) fixes both the score and the future: states met twice are
// explored once. A state is cut when even its optimistic bound (every ball
// of a color that still has 3 balls between board and remaining ammo
// vanishes) cannot beat the incumbent, where "beat" is more balls, or as
// many with fewer shots. The incumbent changes only on a strict
// improvement, so the search order alone decides the plan, and a resumed
// search (without the visited set) reports the same one.

type ammoKid struct {
	mv    move
	board []byte
	gain  int
}

type ammoFrame struct {
	board []byte
	kids  []ammoKid
	next  int
}

type ammoSearch struct {
	m       *solver.Meter
	ammo    string
	n0      int
	suffix  [][26]int // suffix[k][c]: balls of color c in ammo[k:]
	visited map[string]struct{}
	bd      bounder
	h       []int
	key     []byte
	stack   []ammoFrame
	best    int // balls vanished
	shots   int
	plan    []move
}

const ammoPayloadVersion = 1

func solveAmmo(ctx context.Context, lvl *Level, opts solver.Options) (solver.Result, error) {
	m, err := solver.NewMeter(ctx, opts)
	if err != nil {
		return solver.Result{}, err
	}
	s := newAmmoSearch(m, lvl)
	m.KeepsBest(func() solver.Best {
		if len(s.plan) == 0 {
			return solver.Best{}
		}
		return solver.Best{Plan: encodePlan(s.plan), Moves: len(s.plan),
			Details: map[string]any{"mode": string(ModeAmmo), "vanished": s.best, "shots": s.shots}}
	})
	stopped, err := s.run([]byte(lvl.Board), m.Resumed())
	if err != nil {
		return solver.Result{}, err
	}
	res := solver.Result{
		Verdict: solver.Solved, Optimal: true, Proof: "exhaustive",
		Value: solver.Int64(int64(s.best)), Plan: encodePlan(s.plan),
		Details: map[string]any{
			"mode":    string(ModeAmmo),
			"cleared": s.best == s.n0+s.shots,
			"shots":   s.shots,
		},
		Stats: m.Stats(s.shots),
	}
	if stopped {
		res.Verdict, res.Optimal, res.Proof = solver.Unknown, false, ""
		return res, m.Err()
	}
	return res, nil
}

func newAmmoSearch(m *solver.Meter, lvl *Level) *ammoSearch {
	s := &ammoSearch{m: m, ammo: lvl.Ammo, n0: len(lvl.Board), visited: make(map[string]struct{})}
	s.suffix = make([][26]int, len(lvl.Ammo)+1)
	for k := len(lvl.Ammo) - 1; k >= 0; k-- {
		s.suffix[k] = s.suffix[k+1]
		s.suffix[k][lvl.Ammo[k]-'A']++
	}
	return s
}

// upper bounds the balls vanished from board b after k shots (see
// bound.go for the relaxation). In any continuation, the board balls that
// vanish form disjoint intervals of b (the spans of the outermost
// groups), each cleared by inserting at least its relaxation cost G of
// balls into it; so at most R = shots left balls are inserted, and
//
//	gain ≤ R + max Σ|I| over disjoint intervals I with Σ G(I) ≤ R.
//
// Each group of color c draws its inserted balls from the ammo left, so
// a block needing more than that is impossible, as in hand mode.
func (s *ammoSearch) upper(b []byte, k int) int {
	r := len(s.ammo) - k
	v := s.n0 + k - len(b)
	if len(b) == 0 {
		return v + r
	}
	var avail [26]int8
	for c, n := range s.suffix[k] {
		avail[c] = int8(n)
	}
	s.bd.bound(b, &avail)
	n, w := len(b), len(b)+1
	h := s.h[:0]
	for range (n + 1) * (r + 1) {
		h = append(h, 0)
	}
	s.h = h
	// h[e*(r+1)+q]: most board balls of b[:e] in cleared intervals of
	// total cost ≤ q.
	for e := 1; e <= n; e++ {
		for q := 0; q <= r; q++ {
			best := h[(e-1)*(r+1)+q]
			for i := 0; i < e; i++ {
				if g := int(s.bd.g[i*w+e]); g <= q {
					best = max(best, h[i*(r+1)+q-g]+e-i)
				}
			}
			h[e*(r+1)+q] = best
		}
	}
	return v + r + h[n*(r+1)+r]
}

func (s *ammoSearch) expand(b []byte, k int) ammoFrame {
	f := ammoFrame{board: b}
	if k == len(s.ammo) {
		return f
	}
	for _, mv := range appendMoves(nil, b, s.ammo[k]) {
		nb, gain := insert(make([]byte, 0, len(b)+1), b, mv.at, mv.ball)
		f.kids = append(f.kids, ammoKid{mv: mv, board: nb, gain: gain})
	}
	sort.SliceStable(f.kids, func(i, j int) bool { return f.kids[i].gain > f.kids[j].gain })
	return f
}

// visit records the state at the top of the stack as a candidate.
func (s *ammoSearch) visit() {
	k := len(s.stack) - 1
	v := s.n0 + k - len(s.stack[k].board)
	if v > s.best || (v == s.best && k < s.shots) {
		s.best, s.shots = v, k
		s.plan = s.plan[:0]
		for i := 0; i < k; i++ {
			s.plan = append(s.plan, s.stack[i].kids[s.stack[i].next-1].mv)
		}
	}
}

func (s *ammoSearch) seen(b []byte, k int) bool {
	key := binary.AppendUvarint(s.key[:0], uint64(k))
	key = append(key, b...)
	s.key = key
	if _, ok := s.visited[string(key)]; ok {
		return true
	}
	if len(s.visited) < ttMax {
		s.visited[string(key)] = struct{}{}
	}
	return false
}

// run searches from board b, resuming from payload if non-nil. It reports
// whether the search stopped early.
func (s *ammoSearch) run(b []byte, payload []byte) (bool, error) {
	if payload != nil {
		if err := s.restore(b, payload); err != nil {
			return false, err
		}
	}
	if len(s.stack) == 0 {
		if s.m.Tick() {
			s.m.Checkpoint(s.payload())
			return true, nil
		}
		s.stack = append(s.stack, s.expand(b, 0))
		s.visit()
	}
	for len(s.stack) > 0 {
		k := len(s.stack) - 1
		top := &s.stack[k]
		if top.next == len(top.kids) {
			s.stack = s.stack[:k]
			continue
		}
		kid := &top.kids[top.next]
		top.next++
		if ub := s.upper(kid.board, k+1); ub < s.best || (ub == s.best && k+1 >= s.shots) {
			continue
		}
		if s.seen(kid.board, k+1) {
			continue
		}
		if s.m.Tick() {
			top.next--
			s.m.Checkpoint(s.payload())
			return true, nil
		}
		s.stack = append(s.stack, s.expand(kid.board, k+1))
		s.visit()
		if s.m.CheckpointDue() {
			s.m.Checkpoint(s.payload())
		}
	}
	return false, nil
}

// payload: version, incumbent (value, shots, plan ats), stack depth and
// next index of each frame.
func (s *ammoSearch) payload() []byte {
	p := []byte{ammoPayloadVersion, 'a'}
	p = binary.AppendUvarint(p, uint64(s.best))
	p = binary.AppendUvarint(p, uint64(s.shots))
	for _, mv := range s.plan {
		p = binary.AppendUvarint(p, uint64(mv.at))
	}
	p = binary.AppendUvarint(p, uint64(len(s.stack)))
	for i := range s.stack {
		p = binary.AppendUvarint(p, uint64(s.stack[i].next))
	}
	return p
}

func (s *ammoSearch) restore(b []byte, p []byte) error {
	if len(p) < 2 || p[0] != ammoPayloadVersion || p[1] != 'a' {
		return errResume
	}
	r := uvarintReader{p: p[2:]}
	s.best = r.int(1 << 20)
	s.shots = r.int(uint64(len(s.ammo)))
	s.plan = s.plan[:0]
	for i := 0; i < s.shots && !r.bad; i++ {
		s.plan = append(s.plan, move{at: r.int(1 << 20), ball: s.ammo[i]})
	}
	depth := r.int(uint64(len(s.ammo)) + 1)
	if r.bad {
		return errResume
	}
	s.stack = s.stack[:0]
	for i := 0; i < depth; i++ {
		f := s.expand(b, i)
		n := r.int(uint64(len(f.kids)))
		if r.bad || (i+1 < depth && n < 1) {
			return errResume
		}
		f.next = n
		s.stack = append(s.stack, f)
		if i+1 < depth {
			b = f.kids[n-1].board
		}
	}
	if r.bad || len(r.p) != 0 {
		return errResume
	}
	return nil
}
