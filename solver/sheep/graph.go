package sheep

import (
	"math/bits"
	"sort"

	"github.com/puzzled/puzzled/solver"
)

// rawTile is a tile as read, with the input field that names it.
type rawTile struct {
	Tile
	field string
}

// build validates the tiles, sorts them by id and derives the cover graph,
// the dense types and the dominance lists.
func build(slots, size int, geometry bool, raw []rawTile) (*Level, error) {
	if err := checkIDs(raw); err != nil {
		return nil, err
	}
	sort.SliceStable(raw, func(i, j int) bool { return raw[i].ID < raw[j].ID })
	l := &Level{slots: slots, tileSize: size, geometry: geometry}
	if !geometry {
		l.tileSize = 0
	}
	l.tiles = make([]Tile, len(raw))
	l.index = make(map[string]int32, len(raw))
	for i, r := range raw {
		l.tiles[i] = r.Tile
		l.index[r.ID] = int32(i)
	}
	if err := l.buildTypes(raw); err != nil {
		return nil, err
	}
	var err error
	if geometry {
		l.below = geometryBelow(l.tiles, size)
	} else if l.below, err = l.coversBelow(raw); err != nil {
		return nil, err
	}
	l.above = make([]int32, len(raw))
	for _, bs := range l.below {
		for _, b := range bs {
			l.above[b]++
		}
	}
	l.dom = dominators(l.below, l.typ)
	l.beneath = beneathCounts(l.below, l.above)
	l.canonical = encodeCanonical(l)
	return l, nil
}

func checkIDs(raw []rawTile) error {
	seen := make(map[string]string, len(raw))
	for _, r := range raw {
		if len(r.ID) == 0 || len(r.ID) > MaxIDLen {
			return solver.Errorf(r.field+".id", "must be 1 to %d bytes long", MaxIDLen)
		}
		if err := solver.CheckID(r.field+".id", r.ID); err != nil {
			return err
		}
		if prev, dup := seen[r.ID]; dup {
			return solver.Errorf(r.field+".id", "duplicate id %q (also %s)", r.ID, prev)
		}
		seen[r.ID] = r.field
	}
	return nil
}

func (l *Level) buildTypes(raw []rawTile) error {
	dense := map[int]uint8{}
	for _, t := range l.tiles {
		if _, ok := dense[t.Type]; !ok {
			if len(dense) == MaxTypes {
				return solver.Errorf("tiles", "more than %d distinct types", MaxTypes)
			}
			dense[t.Type] = 0
		}
	}
	l.types = make([]int, 0, len(dense))
	for v := range dense {
		l.types = append(l.types, v)
	}
	sort.Ints(l.types)
	for i, v := range l.types {
		dense[v] = uint8(i)
	}
	l.typ = make([]uint8, len(l.tiles))
	for i, t := range l.tiles {
		l.typ[i] = dense[t.Type]
	}
	return nil
}

// geometryBelow: A covers B iff A.layer > B.layer and their squares
// overlap with positive area.
func geometryBelow(ts []Tile, size int) [][]int32 {
	below := make([][]int32, len(ts))
	for i := range ts {
		for j := range ts {
			a, b := ts[i], ts[j]
			if a.Layer > b.Layer && abs(a.X-b.X) < size && abs(a.Y-b.Y) < size {
				below[i] = append(below[i], int32(j))
			}
		}
	}
	return below
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// coversBelow resolves explicit covers lists, sorts them and rejects
// unknown, repeated and self references and cycles.
func (l *Level) coversBelow(raw []rawTile) ([][]int32, error) {
	below := make([][]int32, len(raw))
	total := 0
	for i, r := range raw {
		seen := map[int32]bool{}
		for j, id := range r.Covers {
			f := r.field + ".covers[" + itoa(j) + "]"
			k, ok := l.index[id]
			switch {
			case !ok:
				return nil, solver.Errorf(f, "unknown tile id %q", id)
			case int(k) == i:
				return nil, solver.Errorf(f, "a tile cannot cover itself")
			case seen[k]:
				return nil, solver.Errorf(f, "%q listed twice", id)
			}
			seen[k] = true
			below[i] = append(below[i], k)
		}
		total += len(r.Covers)
		sort.Slice(below[i], func(a, b int) bool { return below[i][a] < below[i][b] })
		l.tiles[i].Covers = make([]string, len(below[i]))
		for j, k := range below[i] {
			l.tiles[i].Covers[j] = l.tiles[k].ID
		}
	}
	if c := findCycle(below); c >= 0 {
		return nil, solver.Errorf(raw[c].field+".covers", "cover graph has a cycle through tile %q", raw[c].ID)
	}
	return below, nil
}

func itoa(v int) string {
	if v == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for v > 0 {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
	}
	return string(b[i:])
}

// findCycle returns a tile on a cycle of the graph, or -1 (Kahn's algorithm:
// tiles never freed lie on or below a cycle; one on a cycle is found by
// walking to a remaining predecessor until a tile repeats).
func findCycle(below [][]int32) int {
	n := len(below)
	indeg := make([]int, n)
	for _, bs := range below {
		for _, b := range bs {
			indeg[b]++
		}
	}
	queue := make([]int32, 0, n)
	for i, d := range indeg {
		if d == 0 {
			queue = append(queue, int32(i))
		}
	}
	for k := 0; k < len(queue); k++ {
		for _, b := range below[queue[k]] {
			if indeg[b]--; indeg[b] == 0 {
				queue = append(queue, b)
			}
		}
	}
	if len(queue) == n {
		return -1
	}
	for i := range below {
		if indeg[i] > 0 {
			return i
		}
	}
	return -1
}

// dominators lists, for each tile a, the tiles b of the same type with
// below[a] ⊆ below[b], strictly or with b < a. Soundness (used by the
// search): let a and b both be clickable and a winning line start with a.
// Swap the two clicks: click b first and a where b was. Every tile clicked
// in between was clickable with a gone; it is not covered by b (b was
// still on the board) and whatever a covered b covers too, so it is still
// clickable; a stays clickable until clicked; the tray sees the same types
// in the same order. So a winning line starting with b exists, and a
// clickable a need not be tried while a dominator is clickable. The
// relation is a strict order (inclusion, then index), so every type keeps
// at least one clickable tile to try.
func dominators(below [][]int32, typ []uint8) [][]int32 {
	n := len(below)
	w := (n + 63) / 64
	sets := make([]uint64, n*w)
	for i, bs := range below {
		for _, b := range bs {
			sets[i*w+int(b)/64] |= 1 << (uint(b) % 64)
		}
	}
	subset := func(a, b int) bool {
		sa, sb := sets[a*w:(a+1)*w], sets[b*w:(b+1)*w]
		for k := range sa {
			if sa[k]&^sb[k] != 0 {
				return false
			}
		}
		return true
	}
	byType := map[uint8][]int{}
	for i, t := range typ {
		byType[t] = append(byType[t], i)
	}
	dom := make([][]int32, n)
	for _, group := range byType {
		for _, a := range group {
			for _, b := range group {
				if a == b || !subset(a, b) {
					continue
				}
				if b < a || !subset(b, a) {
					dom[a] = append(dom[a], int32(b))
				}
			}
		}
	}
	return dom
}

// beneathCounts returns, for each tile, how many tiles lie transitively
// below it (tiles that cannot be reached before it is clicked). It walks
// the tiles bottom-up (reverse Kahn order) and unions bitsets, O(n²/64).
func beneathCounts(below [][]int32, above []int32) []int32 {
	n := len(below)
	w := (n + 63) / 64
	indeg := append([]int32(nil), above...)
	order := make([]int32, 0, n)
	for i, d := range indeg {
		if d == 0 {
			order = append(order, int32(i))
		}
	}
	for k := 0; k < len(order); k++ {
		for _, b := range below[order[k]] {
			if indeg[b]--; indeg[b] == 0 {
				order = append(order, b)
			}
		}
	}
	sets := make([]uint64, n*w)
	counts := make([]int32, n)
	for k := len(order) - 1; k >= 0; k-- {
		i := int(order[k])
		s := sets[i*w : (i+1)*w]
		for _, b := range below[i] {
			s[b/64] |= 1 << (uint(b) % 64)
			for j, v := range sets[int(b)*w : (int(b)+1)*w] {
				s[j] |= v
			}
		}
		for _, v := range s {
			counts[i] += int32(bits.OnesCount64(v))
		}
	}
	return counts
}
