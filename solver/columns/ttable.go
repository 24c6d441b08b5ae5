package columns

// ttable is a direct-mapped transposition table keyed by position hash and
// piece index. Entries may be overwritten; a lost entry only costs time.
type ttable struct {
	e    []ttEntry
	mask uint64
}

type ttEntry struct {
	key    uint64 // 0 = empty
	val    int64  // gain: visible best (goal search) or upper bound (score search)
	suffix uint64 // goal search: best continuation, 6 bits per move (move+1)
}

func newTTable(bits uint) *ttable {
	return &ttable{e: make([]ttEntry, 1<<bits), mask: 1<<bits - 1}
}

func ttKey(h uint64, idx int) uint64 {
	k := fmix64(h + uint64(idx+1)*0x9E3779B97F4A7C15)
	if k == 0 {
		k = 1
	}
	return k
}

func (t *ttable) get(key uint64) (ttEntry, bool) {
	e := t.e[key&t.mask]
	return e, e.key == key
}

func (t *ttable) put(key uint64, val int64, suffix uint64) {
	t.e[key&t.mask] = ttEntry{key: key, val: val, suffix: suffix}
}
