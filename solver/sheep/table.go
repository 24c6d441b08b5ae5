package sheep

// deadTable is the transposition table: a set of proven-dead states, each
// the exact set of removed tiles (the tray follows from it: a type's tray
// count is its clicked count mod 3). Open addressing on the Zobrist hash;
// a hit is confirmed by comparing the stored bitset, so hash collisions
// never prune a live state. When full it stops growing: dropping entries
// only costs re-search, never soundness.
type deadTable struct {
	w     int      // words per key
	slots []int32  // index+1 into keys, 0 = empty
	keys  []uint64 // len = entries*w
	hashs []uint64
	max   int
}

// tableBytes bounds the memory of one table.
const tableBytes = 96 << 20

func newDeadTable(nTiles int) *deadTable {
	w := (nTiles + 63) / 64
	per := 8*w + 8 + 8 // key words, hash, ~2 slots of 4 bytes
	max := tableBytes / per
	size := 1 << 10
	return &deadTable{w: w, slots: make([]int32, size), max: max}
}

func (t *deadTable) len() int { return len(t.hashs) }

func (t *deadTable) contains(h uint64, key []uint64) bool {
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		e := t.slots[i]
		if e == 0 {
			return false
		}
		if t.hashs[e-1] == h && t.equal(int(e-1), key) {
			return true
		}
	}
}

func (t *deadTable) equal(e int, key []uint64) bool {
	k := t.keys[e*t.w : (e+1)*t.w]
	for j := range k {
		if k[j] != key[j] {
			return false
		}
	}
	return true
}

// add records a dead state; the caller knows it is not yet present.
func (t *deadTable) add(h uint64, key []uint64) {
	if len(t.hashs) >= t.max {
		return
	}
	if 2*(len(t.hashs)+1) > len(t.slots) {
		t.grow()
	}
	t.hashs = append(t.hashs, h)
	t.keys = append(t.keys, key...)
	t.place(h, int32(len(t.hashs)))
}

func (t *deadTable) place(h uint64, e int32) {
	mask := uint64(len(t.slots) - 1)
	i := h & mask
	for t.slots[i] != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = e
}

func (t *deadTable) grow() {
	t.slots = make([]int32, 2*len(t.slots))
	for e, h := range t.hashs {
		t.place(h, int32(e+1))
	}
}
