package sheep

// deadTable is the transposition table: a set of proven-dead states, each
// the exact set of removed tiles (the tray follows from it: a type's tray
// count is its clicked count mod 3). Open addressing with linear probing
// on the Zobrist hash; a hit is confirmed by comparing the stored bitset,
// so hash collisions never prune a live state.
//
// Its memory is bounded by tableBytes. Once full, a new entry replaces
// the one with the least work (nodes its proof cost) among the next
// evictWindow entries in ring order, so the states that are expensive to
// prove again stay and cheap ones near the leaves go. Dropping an entry
// only costs re-search, never soundness: the table only ever holds states
// proven dead, and forgetting one just lets the search visit it again.
// Before eviction existed the table stopped growing when full, and on
// L255 deals the exhaustive pass then never ended: deals 3 and 7 fill
// 2.1M entries (96 MB) and stayed unknown after 60 s and 27–123M nodes,
// while with room for 33M entries they are exhausted in 13–15M nodes
// (2.5M and 3.2M dead states).
type deadTable struct {
	w int // words per key
	// slots hold the hash's high 32 bits << 32 | index+1 into keys, 0 =
	// empty: a probe rejects most other entries without touching their
	// hash or key (a cache miss each on tables of hundreds of MB).
	slots  []uint64
	keys   []uint64 // len = entries*w
	hashs  []uint64
	work   []uint32 // nodes spent proving each entry dead (saturating)
	max    int
	cursor int // next ring position eviction looks at, once full
}

// tableBytes bounds the memory of one table: 4.2M states at 255 tiles.
const tableBytes = 224 << 20

// evictWindow is how many entries an eviction compares.
const evictWindow = 8

// deadEntryBytes is the memory of one entry at w key words: the key, its
// hash, its work and two slots (the slot array stays at most half full).
func deadEntryBytes(w int) int { return 8*w + 8 + 4 + 2*8 }

func newDeadTable(nTiles int) *deadTable {
	return newDeadTableMax(nTiles, tableBytes/deadEntryBytes((nTiles+63)/64))
}

// newDeadTableMax is a table of at most max entries (tests use small ones
// to exercise eviction).
func newDeadTableMax(nTiles, max int) *deadTable {
	w := (nTiles + 63) / 64
	return &deadTable{w: w, slots: make([]uint64, 1<<10), max: max}
}

func (t *deadTable) len() int { return len(t.hashs) }

func (t *deadTable) contains(h uint64, key []uint64) bool {
	mask := uint64(len(t.slots) - 1)
	tag := h >> 32
	for i := h & mask; ; i = (i + 1) & mask {
		e := t.slots[i]
		if e == 0 {
			return false
		}
		if e>>32 == tag && t.equal(int(uint32(e)-1), key) {
			return true
		}
	}
}

// home is the word of the slot where a probe for hash h starts (contains):
// search.touchChildren loads it ahead of the probe.
func (t *deadTable) home(h uint64) uint64 { return t.slots[h&uint64(len(t.slots)-1)] }

// slot is the slot word of entry e with hash h.
func slot(h uint64, e int) uint64 { return h>>32<<32 | uint64(e+1) }

func (t *deadTable) equal(e int, key []uint64) bool {
	k := t.keys[e*t.w : (e+1)*t.w]
	for j := range k {
		if k[j] != key[j] {
			return false
		}
	}
	return true
}

// insert adds key as add does unless it is present, with one probe for
// both, and reports whether it added it. It is for tables used as plain
// sets (the retrograde layers), which never evict: the caller keeps len
// below max.
func (t *deadTable) insert(h uint64, key []uint64) bool {
	if 2*(len(t.hashs)+1) > len(t.slots) {
		t.grow()
	}
	mask := uint64(len(t.slots) - 1)
	tag := h >> 32
	i := h & mask
	for ; t.slots[i] != 0; i = (i + 1) & mask {
		if e := t.slots[i]; e>>32 == tag && t.equal(int(uint32(e)-1), key) {
			return false
		}
	}
	t.push(h, key, 0)
	t.slots[i] = slot(h, len(t.hashs)-1)
	return true
}

// add records a dead state whose proof took work nodes; the caller knows
// it is not yet present.
func (t *deadTable) add(h uint64, key []uint64, work int64) {
	wk := uint32(min(work, 1<<32-1))
	if len(t.hashs) >= t.max {
		if t.max == 0 {
			return
		}
		e := t.victim()
		t.remove(e)
		t.hashs[e] = h
		copy(t.keys[e*t.w:(e+1)*t.w], key)
		t.work[e] = wk
		t.place(slot(h, e))
		return
	}
	if 2*(len(t.hashs)+1) > len(t.slots) {
		t.grow()
	}
	t.push(h, key, wk)
	t.place(slot(h, len(t.hashs)-1))
}

// push appends an entry to the arrays. When they are full it makes them
// twice as large (up to max entries), where append grows a large slice by
// a quarter at a time: on the unlimited pass of a hard P20 deal, whose
// table fills to millions of entries, append's copies took 13 % of the
// time, twofold growth's 7 %. A retrograde layer that outgrows its
// reserve (retro.go) may hold up to twice the room it needs.
func (t *deadTable) push(h uint64, key []uint64, wk uint32) {
	if n := len(t.hashs); n == cap(t.hashs) {
		c := max(2*n, 1024)
		if t.max > n {
			c = min(c, t.max)
		}
		t.hashs = append(make([]uint64, 0, c), t.hashs...)
		t.keys = append(make([]uint64, 0, c*t.w), t.keys...)
		t.work = append(make([]uint32, 0, c), t.work...)
	}
	t.hashs = append(t.hashs, h)
	t.keys = append(t.keys, key...)
	t.work = append(t.work, wk)
}

// victim picks the entry with the least work among the next evictWindow
// in ring order and moves the ring cursor past them.
func (t *deadTable) victim() int {
	n := len(t.hashs)
	best := t.cursor
	for k := 1; k < evictWindow && k < n; k++ {
		if e := (t.cursor + k) % n; t.work[e] < t.work[best] {
			best = e
		}
	}
	t.cursor = (t.cursor + evictWindow) % n
	return best
}

// remove takes entry e out of the slot array by backward-shift deletion,
// which keeps every other entry reachable from its home slot without
// tombstones.
func (t *deadTable) remove(e int) {
	mask := uint64(len(t.slots) - 1)
	i := t.hashs[e] & mask
	for uint32(t.slots[i]) != uint32(e+1) {
		i = (i + 1) & mask
	}
	for j := (i + 1) & mask; ; j = (j + 1) & mask {
		f := t.slots[j]
		if f == 0 {
			break
		}
		// The entry at j may move back to the hole at i unless its home
		// slot lies cyclically in (i, j].
		home := t.hashs[uint32(f)-1] & mask
		if (j-home)&mask >= (j-i)&mask {
			t.slots[i] = f
			i = j
		}
	}
	t.slots[i] = 0
}

// place puts slot word sw (see slot) at its entry's home or after it.
func (t *deadTable) place(sw uint64) {
	mask := uint64(len(t.slots) - 1)
	i := t.hashs[uint32(sw)-1] & mask
	for t.slots[i] != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = sw
}

// reserve makes room for n entries (at most max) without growing.
func (t *deadTable) reserve(n int) {
	n = min(n, t.max)
	if len(t.hashs) > 0 || 2*n <= len(t.slots) {
		return
	}
	size := len(t.slots)
	for size < 2*n {
		size *= 2
	}
	t.slots = make([]uint64, size)
	t.keys = make([]uint64, 0, n*t.w)
	t.hashs = make([]uint64, 0, n)
	t.work = make([]uint32, 0, n)
}

func (t *deadTable) grow() {
	t.slots = make([]uint64, 2*len(t.slots))
	for e, h := range t.hashs {
		t.place(slot(h, e))
	}
}

// byWork yields the entries by work class (checkpoint.go), the costliest
// class first, each class newest first, at most limit entries in all (a
// counting sort: a checkpoint of a full table must not sort 4M entries).
func (t *deadTable) byWork(limit int) func(yield func(int, []int32) bool) {
	return func(yield func(int, []int32) bool) {
		n := len(t.hashs)
		var count [workClasses]int
		for _, w := range t.work {
			count[workClass(w)]++
		}
		// start[c]: where class c begins in order; classes below low
		// are left out, class low may be cut.
		var start [workClasses + 1]int
		low, total := 0, 0
		for c := workClasses - 1; c >= 0; c-- {
			start[c] = total
			if total+count[c] >= limit {
				count[c] = limit - total
				low = c
				break
			}
			total += count[c]
		}
		total = start[low] + count[low]
		order := make([]int32, total)
		fill := start
		for j := 1; j <= n; j++ { // newest first, see encodeDead
			e := (t.cursor - j + n) % n
			c := workClass(t.work[e])
			if c >= low && fill[c] < start[c]+count[c] {
				order[fill[c]] = int32(e)
				fill[c]++
			}
		}
		for c := workClasses - 1; c >= low; c-- {
			if count[c] > 0 && !yield(c, order[start[c]:start[c]+count[c]]) {
				return
			}
		}
	}
}
