package sheep

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"slices"

	"github.com/puzzled/puzzled/solver"
)

// The repair's edits (solver/repair): size 1 swaps the types of two
// tiles, size 2 rotates the types of three (a takes b's, b takes c's, c
// takes a's, or the other way round). Both keep every type's count, so
// the type-count precheck still holds.
//
// Swaps aimed at the dead end come first: the solver's best partial line
// (with a node budget, so the same in every run) ends where no click is
// safe; a tile clickable there that takes the type of a pair (then of a
// single) waiting in the tray, from a tile not yet reachable, lets that
// line go on. Then every other swap, tiles near the top first — ordered
// by how many tiles lie above them, transitively — since a swap there
// changes the game from its first clicks; pairs (and triples) are
// enumerated by their deepest tile, so all edits among the k shallowest
// tiles come before any that involves a deeper one.

// MaxEditSize implements solver.Editor.
func (kind) MaxEditSize() int { return 2 }

// Edits implements solver.Editor.
func (kind) Edits(lvl solver.Level, size int) iter.Seq[solver.Edit] {
	return func(yield func(solver.Edit) bool) {
		l, err := asLevel(lvl)
		if err != nil {
			yield(solver.Edit{Desc: "not a sheep level", Apply: func() (solver.Level, error) { return nil, err }})
			return
		}
		order := shallowFirst(l)
		switch size {
		case 1:
			swap := func(a, b int32) solver.Edit {
				return l.retype(fmt.Sprintf("swap the types of %s (%d) and %s (%d)",
					l.tiles[a].ID, l.tiles[a].Type, l.tiles[b].ID, l.tiles[b].Type), map[int32]int{a: l.tiles[b].Type, b: l.tiles[a].Type})
			}
			aimed := map[[2]int32]bool{}
			for _, p := range deadEndSwaps(l, order) {
				aimed[[2]int32{min(p[0], p[1]), max(p[0], p[1])}] = true
				if !yield(swap(p[0], p[1])) {
					return
				}
			}
			for j := range order {
				for i := range j {
					a, b := order[i], order[j]
					if l.typ[a] == l.typ[b] || aimed[[2]int32{min(a, b), max(a, b)}] {
						continue
					}
					if !yield(swap(a, b)) {
						return
					}
				}
			}
		case 2:
			for k := range order {
				for j := range k {
					for i := range j {
						a, b, c := order[i], order[j], order[k]
						ta, tb, tc := l.tiles[a].Type, l.tiles[b].Type, l.tiles[c].Type
						if ta == tb || tb == tc || ta == tc {
							continue // a rotation of three with a repeated type is a swap
						}
						if !yield(l.retype(fmt.Sprintf("give %s, %s, %s the types %d, %d, %d", l.tiles[a].ID, l.tiles[b].ID, l.tiles[c].ID, tb, tc, ta),
							map[int32]int{a: tb, b: tc, c: ta})) {
							return
						}
						if !yield(l.retype(fmt.Sprintf("give %s, %s, %s the types %d, %d, %d", l.tiles[a].ID, l.tiles[b].ID, l.tiles[c].ID, tc, ta, tb),
							map[int32]int{a: tc, b: ta, c: tb})) {
							return
						}
					}
				}
			}
		}
	}
}

// repairLineNodes is the node budget of the solve that finds the best
// partial line of a level to repair: a node budget, not a time, so the
// line and the order of the edits are the same in every run.
const repairLineNodes = 300_000

// deadEndSwaps are the swaps aimed at where the solver's best partial
// line of l stops: each puts the type of a pair waiting in the tray (then
// of a single) on a tile clickable there, taking that tile's type to a
// tile of the tray's type not yet reachable (shallow ones first).
func deadEndSwaps(l *Level, order []int32) [][2]int32 {
	res, err := Solve(context.Background(), l, solver.Options{Budget: solver.Budget{MaxNodes: repairLineNodes}})
	if err != nil || res.Verdict == solver.Solved {
		return nil
	}
	var ids []string
	if json.Unmarshal(res.Plan, &ids) != nil {
		return nil
	}
	b := newBoard(l)
	for _, id := range ids {
		b.apply(l.index[id])
	}
	clickable := slices.Clone(b.clk)
	slices.Sort(clickable)
	var out [][2]int32
	for _, want := range []int8{2, 1} {
		for t, n := range b.tray {
			if n != want {
				continue
			}
			for _, c := range clickable {
				if int(l.typ[c]) == t {
					continue
				}
				for _, d := range order {
					if l.typ[d] == uint8(t) && !b.clickable(d) && b.removed[d>>6]&(1<<(uint(d)&63)) == 0 {
						out = append(out, [2]int32{c, d})
					}
				}
			}
		}
	}
	return out
}

// retype is the edit giving the tiles of types their new type values.
func (l *Level) retype(desc string, types map[int32]int) solver.Edit {
	return solver.Edit{Desc: desc, Apply: func() (solver.Level, error) {
		raw := make([]rawTile, len(l.tiles))
		for i, t := range l.Tiles() {
			if v, ok := types[int32(i)]; ok {
				t.Type = v
			}
			raw[i] = rawTile{Tile: t, field: fmt.Sprintf("tiles[%d]", i)}
		}
		return build(l.slots, max(l.tileSize, 1), l.geometry, raw)
	}}
}

// shallowFirst orders the tiles by the number of tiles transitively above
// them, then by index.
func shallowFirst(l *Level) []int32 {
	n := len(l.tiles)
	above := make([]map[int32]bool, n)
	var visit func(i int32) map[int32]bool
	// Tiles covering i are those whose below lists hold i.
	up := make([][]int32, n)
	for a, bs := range l.below {
		for _, b := range bs {
			up[b] = append(up[b], int32(a))
		}
	}
	visit = func(i int32) map[int32]bool {
		if above[i] != nil {
			return above[i]
		}
		s := map[int32]bool{}
		for _, a := range up[i] {
			s[a] = true
			for x := range visit(a) {
				s[x] = true
			}
		}
		above[i] = s
		return s
	}
	order := make([]int32, n)
	count := make([]int, n)
	for i := range order {
		order[i] = int32(i)
		count[i] = len(visit(int32(i)))
	}
	slices.SortStableFunc(order, func(a, b int32) int { return count[a] - count[b] })
	return order
}
