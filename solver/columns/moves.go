package columns

// moveLists lists, per piece, the distinct moves as col*3+rot in column
// then rotation order. A piece of three equal jewels gets rotation 0 only:
// its rotations are identical.
func moveLists(l *Level) [][]uint8 {
	var all, single []uint8
	for c := 0; c < l.Width; c++ {
		single = append(single, uint8(c*3))
		for r := 0; r < 3; r++ {
			all = append(all, uint8(c*3+r))
		}
	}
	out := make([][]uint8, len(l.pieces))
	for i, p := range l.pieces {
		out[i] = all
		if p[0] == p[1] && p[1] == p[2] {
			out[i] = single
		}
	}
	return out
}
