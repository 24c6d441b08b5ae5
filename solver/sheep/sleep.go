package sheep

// Sleep sets (partial-order reduction) in the unlimited pass: most of
// its nodes are clicks into states already proven dead (on L255 deal 0,
// 3.56M of 4.79M nodes hit the table), mostly the same two clicks made in
// the other order. A frame's sleep set holds moves known to lead to dead
// states, and the search skips them without a node or a table probe.
//
// Invariant. Every move z in the sleep set Z(N) of a state N is clickable
// and legal in N, and the state N+z is dead (no winning line leads from
// it).
//
// Construction. Let P be a state, t its move being tried, and E the moves
// of P tried before t. The sleep set of N = P+t is every z in Z(P) ∪ E
// such that t is legal in P+z (legalAfter).
//
// Proof that the invariant holds for N. Take such a z; it is clickable
// and legal in P (E: moves of P; Z(P): the invariant for P). A move e in
// E was tried and the search went on, so no win was found below P+e: P+e
// is dead (every move from it was tried, skipped as asleep, or pruned
// soundly, recursively). A z in Z(P) has P+z dead by the invariant for
// P. Both z and t are clickable in P and distinct, and a click never
// covers a tile, so t is clickable in P+z and z in P+t. P+z+t and P+t+z
// remove the same tiles, so they are the same state (the tray is a
// function of the removed tiles); a click is legal exactly when the tray
// after it holds fewer than slots tiles, so z is legal in P+t because t
// is legal in P+z. P+z+t is reached from the dead state P+z by the legal
// click t, and a successor of a dead state is dead (a win from it would
// extend to a win from P+z). So N+z = P+z+t is dead.
//
// Consequences. A frame closes dead when every move was tried, pruned or
// asleep; its asleep moves lead to dead states, so the state is dead and
// may go into the table, which only ever holds truly dead states whatever
// sleep set a later visit arrives with. The dominance and look-ahead
// prunes of genMoves remain sound next to it: both say a pruned move
// wins only if a kept one does, or that it loses, and the kept one, if
// asleep, loses. Only the unlimited pass uses sleep sets: the node counts
// of limited passes decide where they stop, and checkpoints rely on those
// (search.go). A resume rebuilds the sleep sets of the saved path: the
// moves tried before in each saved frame did not win, so they are dead.

// sleeping reports whether the current pass uses sleep sets.
func (s *search) sleeping() bool {
	return !s.sched.noSleep && s.sched.limit(s.pass) == 0
}

// asleep reports whether mv is in f's sleep set.
func (s *search) asleep(f *frame, mv int32) bool {
	for _, z := range s.sleep[f.sleepAt:f.sleepEnd] {
		if z == mv {
			return true
		}
	}
	return false
}

// childSleep sets s.pending to the sleep set of the state after clicking
// t from the current state, whose frame is f with t its move at f.next-1.
func (s *search) childSleep(f *frame, t int32) {
	s.pending = s.pending[:0]
	if !s.sleeping() {
		return
	}
	if s.mark == nil {
		s.mark = make([]int32, len(s.b.l.tiles))
	}
	s.stamp++
	for _, z := range s.sleep[f.sleepAt:f.sleepEnd] {
		s.considerSleep(z, t)
	}
	for _, z := range s.arena[f.start : f.next-1] {
		s.considerSleep(z, t)
	}
}

// considerSleep adds z to s.pending when t is legal after z (once: an
// asleep move is also among the moves tried before).
func (s *search) considerSleep(z, t int32) {
	if s.mark[z] == s.stamp {
		return
	}
	s.mark[z] = s.stamp
	if legalAfter(s.b, z, t) {
		s.pending = append(s.pending, z)
	}
}

// legalAfter reports whether clicking t is legal after clicking z, both
// clickable and legal in b's state, without changing b.
func legalAfter(b *board, z, t int32) bool {
	u, v := b.l.typ[z], b.l.typ[t]
	size, cv := b.traySize, b.tray[v]
	if b.tray[u] == 2 {
		size -= 2
		if u == v {
			cv = 0
		}
	} else {
		size++
		if u == v {
			cv++
		}
	}
	return cv == 2 || size+1 < b.l.slots
}
