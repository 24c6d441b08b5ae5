package difficulty

// toy is a Game for tests: depth decisions of width moves each; the
// position is the sequence played so far, and rule decides its status.
type toy struct {
	width, depth int
	rule         func(seq []int) Status
	greedy       func(seq []int, m int) int
	seq          []int
}

func newToy(width, depth int, rule func([]int) Status) NewGame {
	return func() Game { return &toy{width: width, depth: depth, rule: rule} }
}

func (t *toy) Moves(dst []int) []int {
	for m := 0; m < t.width; m++ {
		dst = append(dst, m)
	}
	return dst
}

func (t *toy) Play(m int) { t.seq = append(t.seq, m) }
func (t *toy) Undo()      { t.seq = t.seq[:len(t.seq)-1] }

func (t *toy) Status() Status {
	if s := t.rule(t.seq); s != Playing || len(t.seq) < t.depth {
		return s
	}
	return Lost
}

func (t *toy) Greedy(m int) int {
	if t.greedy == nil {
		return 0
	}
	return t.greedy(t.seq, m)
}

func (t *toy) Key(dst []byte) []byte {
	for _, m := range t.seq {
		dst = append(dst, byte(m))
	}
	return dst
}

// zerosWin wins once z moves in a row are 0 from the start; any other
// move loses at once.
func zerosWin(z int) func([]int) Status {
	return func(seq []int) Status {
		for _, m := range seq {
			if m != 0 {
				return Lost
			}
		}
		if len(seq) >= z {
			return Won
		}
		return Playing
	}
}
