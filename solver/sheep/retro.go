package sheep

import (
	"math/bits"
	"strconv"
	"strings"
)

// Retrograde proofs (proof "retrograde:left=J"). A state is the set R of
// tiles left: the tray follows from it (a type's tray count is its
// clicked count mod 3), and R is closed downwards (a tile under a tile
// left cannot have been clicked). Let W_j be the states with j tiles left
// from which the level can be cleared. W_0 holds the empty board, and a
// state R' with j+1 tiles left is in W_{j+1} exactly when some click
// leads from R' to a state R of W_j: R' = R plus a tile t that
//   - has every tile it covers in R (R' is closed downwards, a state);
//     then no tile of R covers t (R is closed downwards too: a tile of R
//     above t would put t in R), so t is clickable in R',
//   - and leaves R' a state that is not lost (its tray holds fewer than
//     slots tiles); the click from R' to R is then legal, since R's tray
//     holds fewer than slots tiles too.
//
// So the backward search below computes every W_j exactly, from the end
// of the game. A winning line passes through a state with j tiles left
// for every j, and that state is in W_j; so if some W_J is empty, no line
// wins: the level is unsolvable. Where the bottom of a level is tight
// (the one-tower layout L255) the W_j stay small and one of them is
// empty within a few thousand states, while the forward search needs
// millions of nodes to exhaust the same level.
//
// States are told apart by their whole tile set, never by a hash alone (a
// state lost to a collision would make a W_j smaller than it is, and the
// proof unsound), and a layer never drops a state.

// retroPlan bounds a retrograde search: at most nodes states expanded
// (0: none), and no layer W_j larger than maxLayer states. In the beam
// phase (schedule.retro) it runs before beam afterBeams.
type retroPlan struct {
	nodes      int64
	maxLayer   int
	afterBeams int
	// keep makes the search keep its complete layers as the search's
	// endgame table (endgame.go) when it proves nothing.
	keep bool
}

// defaultRetro runs after the beam of 50, which wins most deals of the
// broad-mound layout L255w that pass 0 leaves. There its layers grow
// about twofold every three tiles and pass 8,192 states within 4,600
// states expanded (median of deals 0–19; at most 15,800), while on the
// one-tower layout L255 they stay narrow: 125 of deals 0–149 are proven
// with no layer over 8,192 states (median 5,800 states expanded, widest
// layer 800).
//
// Since sheep/11 its layers are also the endgame table (endgame.go) of the
// searches after it, at no extra cost.
var defaultRetro = retroPlan{nodes: 1 << 17, maxLayer: 1 << 13, afterBeams: 1, keep: true}

// defaultRetroFar is for the levels no beam brought near a win (the exact
// pass follows at once): all L255 deals 0–149 are proven within 1.1M
// states expanded, 148 with no layer over 65,536 states (p90 of the
// states expanded: 200,000); L255w deals seldom get here.
var defaultRetroFar = retroPlan{nodes: 1 << 21, maxLayer: 1 << 16}

// maxRetroNodes bounds nodes. Verify repeats the search of a retrograde
// proof with this limit: a search that proved within fewer nodes proves
// within more (it is a pure function of the level).
const maxRetroNodes = 1 << 22

// retroOutcome is how a retrograde search ended.
type retroOutcome int

const (
	retroNone    retroOutcome = iota // out of budget, or the level can be won
	retroProven                      // some W_j is empty: unsolvable
	retroStopped                     // the meter stopped it
)

// retroSearch is the backward search of one level.
type retroSearch struct {
	l     *Level
	w     int        // words per state
	zob   []uint64   // Zobrist keys of the tiles
	types [][]uint64 // per dense type, the bitset of its tiles
	total []int      // tiles of each type
	// Every tile that covers others is listed in over under one of them,
	// the one with the most tiles beneath it (mostly the highest), and
	// bottom is the bitset of the tiles that cover none: a tile can be
	// put back on a state only if it is in bottom or listed under a tile
	// of the state (candidates), which spares testing every tile not on
	// the board.
	// over is flat: the tiles listed under tile s are
	// over[overAt[s]:overAt[s+1]] (one array walked in order, rather than
	// a slice header per tile).
	over   []uint16
	overAt []int32
	bottom []uint64
	cand   []uint64 // scratch of candidates
	// countTrays counts each state's tray from its tiles rather than
	// keeping it beside the state: levels of more than 32 types (tests
	// check the two agree).
	countTrays bool
	// layers are W_0, W_1, ... as far as they were completed, when the
	// plan keeps them.
	layers []*deadTable
}

func newRetroSearch(l *Level) *retroSearch {
	n := len(l.tiles)
	r := &retroSearch{l: l, w: (n + 63) / 64, zob: zobrist(n), types: make([][]uint64, len(l.types)),
		total: make([]int, len(l.types))}
	for u := range r.types {
		r.types[u] = make([]uint64, r.w)
	}
	r.bottom, r.cand = make([]uint64, r.w), make([]uint64, r.w)
	under := make([][]uint16, n)
	for i := range l.tiles {
		u := l.typ[i]
		r.types[u][i/64] |= 1 << (i % 64)
		r.total[u]++
		if len(l.below[i]) == 0 {
			r.bottom[i/64] |= 1 << (i % 64)
		} else {
			rep := l.below[i][0]
			for _, b := range l.below[i] {
				if l.beneath[b] > l.beneath[rep] {
					rep = b
				}
			}
			under[rep] = append(under[rep], uint16(i))
		}
	}
	r.overAt = make([]int32, n+1)
	for s, ts := range under {
		r.over = append(r.over, ts...)
		r.overAt[s+1] = int32(len(r.over))
	}
	return r
}

// run computes W_1, W_2, ... until one is empty (retroProven, with left
// the number of tiles of its states), the start state is reached (the
// level can be won: retroNone), or tick reports a stop (retroStopped) or
// the plan's bounds are passed (retroNone). tick is called once per state
// expanded and reports whether to stop.
func (r *retroSearch) run(plan retroPlan, tick func() bool) (out retroOutcome, left int) {
	n := len(r.l.tiles)
	// A layer is a dead-state table used as a plain set (its work unused):
	// it compares whole keys, and with room for a layer over maxLayer
	// plus one state's successors it never evicts. Its room is reserved
	// at the size the layers so far predict: growing by doubling copied
	// every layer's keys about twice, a sixth of the search's time on the
	// deep table. Sizes run in threes (the trays' counts mod 3: on
	// capture-264 deal 112, 13,287 states, then 5,501, then 43,069), so
	// W_{j+1} is predicted from W_{j-2}, times the growth of the three
	// layers before it (at most fourfold), with a tenth to spare.
	layerMax := plan.maxLayer + n + 1
	var sizes []int // the sizes of W_0, W_1, ...
	layer := func() *deadTable {
		t := newDeadTableMax(n, layerMax)
		if j := len(sizes); j >= 6 {
			a, b := float64(sizes[j-3]), float64(sizes[j-6])
			t.reserve(int(min(a*min(a/b, 4)*1.1, float64(layerMax))))
		}
		return t
	}
	cur := layer()
	cur.add(0, make([]uint64, r.w), 0) // W_0: the empty board
	sizes = append(sizes, 1)
	if plan.keep {
		r.layers = append(r.layers[:0], cur)
	}
	// The tray of each state of cur and next (curTray, nextTray: a
	// type's count, 0–2, in two bits, for up to 32 types), kept beside
	// the layers rather than counted from the tiles of each state (a
	// third of the search's time). W_0's tray is every type's total mod
	// 3, its clicked count.
	packed := len(r.total) <= 32 && !r.countTrays
	var curTray, nextTray []uint64
	var tray0 uint64
	for u, c := range r.total {
		tray0 |= uint64(c%3) << (2 * u)
	}
	curTray = append(curTray, tray0)
	trayOf := make([]int, len(r.total))
	var expanded int64
	key := make([]uint64, r.w)
	for j := 0; j < n; j++ {
		next := layer()
		nextTray = nextTray[:0]
		for e := range cur.len() {
			if expanded++; expanded > plan.nodes {
				return retroNone, 0
			}
			if tick() {
				return retroStopped, 0
			}
			state, h := cur.keys[e*r.w:(e+1)*r.w], cur.hashs[e]
			size := 0
			if packed {
				for u, tr := 0, curTray[e]; u < len(trayOf); u, tr = u+1, tr>>2 {
					trayOf[u] = int(tr & 3)
					size += trayOf[u]
				}
			} else {
				size = r.trayOf(state, trayOf)
			}
			r.candidates(state)
			for k, word := range r.cand {
				for free := word; free != 0; free &= free - 1 {
					t := int32(k*64 + bits.TrailingZeros64(free))
					if !r.onTop(state, t) {
						continue
					}
					// Putting t back un-clicks it: its type's tray
					// count goes down by one, mod 3.
					u := r.l.typ[t]
					down := (trayOf[u] + 2) % 3
					if size-trayOf[u]+down >= r.l.slots {
						continue
					}
					copy(key, state)
					key[k] |= 1 << (t % 64)
					if next.insert(h^r.zob[t], key) && packed {
						tr := curTray[e]&^(3<<(2*u)) | uint64(down)<<(2*u)
						nextTray = append(nextTray, tr)
					}
				}
			}
			if next.len() > plan.maxLayer {
				return retroNone, 0
			}
		}
		if next.len() == 0 {
			return retroProven, j + 1
		}
		sizes = append(sizes, next.len())
		cur, curTray, nextTray = next, nextTray, curTray
		if plan.keep {
			r.layers = append(r.layers, cur)
		}
	}
	return retroNone, 0 // W_n holds the start: the level can be won
}

// trayOf sets tray to the tray count of each type in state (the tiles
// left), its clicked count mod 3, and returns their sum: for levels of
// more than 32 types, whose trays do not fit in a word.
func (r *retroSearch) trayOf(state []uint64, tray []int) int {
	size := 0
	for u, tm := range r.types {
		c := 0
		for k, word := range state {
			c += bits.OnesCount64(word & tm[k])
		}
		tray[u] = (r.total[u] - c) % 3
		size += tray[u]
	}
	return size
}

// candidates sets r.cand to the tiles not in state that are in bottom or
// listed in over under a tile of state: every tile that onTop may accept
// (one that covers tiles, all of them in state, has the one it is listed
// under in state). The tiles not in state are most of the level near the
// end of the game, and testing each with onTop was half the search's time.
func (r *retroSearch) candidates(state []uint64) {
	for k, word := range state {
		r.cand[k] = r.bottom[k] &^ word
	}
	for k, word := range state {
		for left := word; left != 0; left &= left - 1 {
			s := k*64 + bits.TrailingZeros64(left)
			for _, t := range r.over[r.overAt[s]:r.overAt[s+1]] {
				r.cand[t>>6] |= 1 << (t & 63)
			}
		}
	}
	for k, word := range state {
		r.cand[k] &^= word
	}
}

// onTop reports whether tile t, not in state, can be put back on state:
// every tile it covers is in state. No tile of state covers t then: the
// states are closed downwards, so a tile of state above t would put t in
// state.
func (r *retroSearch) onTop(state []uint64, t int32) bool {
	for _, b := range r.l.below[t] {
		if state[b/64]&(1<<(b%64)) == 0 {
			return false
		}
	}
	return true
}

// retroPhase runs the schedule's retrograde search (pass 0, large levels),
// counting its states as nodes. It is a pure function of the level and
// the plan unless the meter stops it, and keeps no state in checkpoints:
// a search resumed in pass 0 runs it again.
//
// A plan that keeps its layers gives the search its endgame table when it
// proves nothing (retroNone): W_0 to the last layer it completed.
func (s *search) retroPhase(plan retroPlan) retroOutcome {
	m := s.m
	r := newRetroSearch(s.b.l)
	out, left := r.run(plan, func() bool {
		if m.CheckpointDue() {
			m.Checkpoint(s.root().encode())
		}
		return m.Tick()
	})
	switch {
	case out == retroProven:
		s.retroLeft = left
	case out == retroNone && len(r.layers) > 1:
		s.end = newEndgame(s.b.l, r.layers)
		s.end.follow(s.path)
	}
	return out
}

// retroProof renders the proof of a retrograde search.
func retroProof(left int) string { return "retrograde:left=" + strconv.Itoa(left) }

// checkRetroProof repeats the retrograde search a "retrograde:left=J"
// proof names (at most maxRetroNodes states) and reports whether it finds
// W_J empty.
func checkRetroProof(l *Level, proof string) bool {
	v, ok := strings.CutPrefix(proof, "retrograde:left=")
	if !ok {
		return false
	}
	want, err := strconv.Atoi(v)
	if err != nil || want < 1 || want > len(l.tiles) {
		return false
	}
	out, left := newRetroSearch(l).run(retroPlan{nodes: maxRetroNodes, maxLayer: maxRetroNodes}, func() bool { return false })
	return out == retroProven && left == want
}
