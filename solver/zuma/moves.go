package zuma

// appendMoves appends the distinct moves of ball c on board b.
//
// Inserting c anywhere inside or next to a run of c gives the same board,
// so each run of c contributes one move, at its first ball. Every other
// position (between two balls that are not c, or at an end next to a ball
// that is not c) gives a distinct board and is kept: no move is pruned.
func appendMoves(dst []move, b []byte, c byte) []move {
	for at := 0; at <= len(b); at++ {
		if at > 0 && b[at-1] == c {
			continue // same board as inserting at the start of that run
		}
		dst = append(dst, move{at: at, ball: c})
	}
	return dst
}

// boardColors appends the colors on b in ascending order.
func boardColors(dst []byte, b []byte) []byte {
	var seen [26]bool
	for _, c := range b {
		seen[c-'A'] = true
	}
	for i, ok := range seen {
		if ok {
			dst = append(dst, byte('A'+i))
		}
	}
	return dst
}

// freshColor is the smallest color not on b, or 0 if b uses all 26. In
// unlimited mode every color absent from the board is interchangeable
// (relabel it), so one stands for all.
func freshColor(b []byte) byte {
	var seen [26]bool
	for _, c := range b {
		seen[c-'A'] = true
	}
	for i, ok := range seen {
		if !ok {
			return byte('A' + i)
		}
	}
	return 0
}
