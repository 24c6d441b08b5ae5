package difficulty

// toy is a Game for tests: depth decisions of width moves each; the
// position is the sequence played so far, and rule decides its status.
type toy struct {
	width, depth int
	rule         func(seq []int) Status
	greedy       func(seq []int, m int) int
	eval         func(seq []int) int64
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

// Eval, Fork and Hash make the toy a BeamGame: a position is worth the
// sum of its moves unless eval says otherwise.
func (t *toy) Eval() int64 {
	if t.eval != nil {
		return t.eval(t.seq)
	}
	s := int64(0)
	for _, m := range t.seq {
		s += int64(m)
	}
	return s
}

func (t *toy) Fork(dst BeamGame) BeamGame {
	d, ok := dst.(*toy)
	if !ok {
		d = &toy{}
	}
	seq := append(d.seq[:0], t.seq...)
	*d = *t
	d.seq = seq
	return d
}

func (t *toy) Hash() uint64 {
	h := uint64(14695981039346656037)
	for _, c := range t.Key(nil) {
		h = (h ^ uint64(c)) * 1099511628211
	}
	return h ^ uint64(len(t.seq))
}

// needle wins only along the all-zeros line of depth moves, which the
// toy's Eval (the sum of the moves) rates worst at every depth; every
// other line is lost at depth moves. A beam keeps it only if it keeps
// every position: width ≥ width^(depth−1) of the toy wins, any narrower
// beam loses.
func needle(depth int) func([]int) Status {
	return func(seq []int) Status {
		if len(seq) < depth {
			return Playing
		}
		for _, m := range seq {
			if m != 0 {
				return Lost
			}
		}
		return Won
	}
}
