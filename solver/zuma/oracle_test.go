package zuma

import (
	"sort"
	"strings"
)

// The brute-force oracle: a second, deliberately plain simulator and
// breadth-first searches over every insertion position and every ball,
// with a visited set and no pruning at all.

// oracleInsert inserts c at at and removes runs of 3+ until none is left,
// scanning the whole board each time.
func oracleInsert(board string, at int, c byte) string {
	s := make([]byte, 0, len(board)+1)
	s = append(append(append(s, board[:at]...), c), board[at:]...)
	for {
		found := false
		for i := 0; i < len(s); {
			j := i
			for j < len(s) && s[j] == s[i] {
				j++
			}
			if j-i >= 3 {
				s = append(s[:i], s[j:]...)
				found = true
				break
			}
			i = j
		}
		if !found {
			return string(s)
		}
	}
}

func sortedString(s string) string {
	b := []byte(s)
	sort.Slice(b, func(i, j int) bool { return b[i] < b[j] })
	return string(b)
}

// oracleHand is the fewest insertions from hand that clear board, or -1.
func oracleHand(board, hand string) int {
	type st struct{ board, hand string }
	start := st{board, sortedString(hand)}
	seen := map[st]bool{start: true}
	level := []st{start}
	for depth := 1; len(level) > 0; depth++ {
		var next []st
		for _, s := range level {
			for i := 0; i < len(s.hand); i++ {
				if i > 0 && s.hand[i] == s.hand[i-1] {
					continue // the same ball again: the same children
				}
				rest := s.hand[:i] + s.hand[i+1:]
				for at := 0; at <= len(s.board); at++ {
					nb := oracleInsert(s.board, at, s.hand[i])
					if nb == "" {
						return depth
					}
					n := st{nb, rest}
					if !seen[n] {
						seen[n] = true
						next = append(next, n)
					}
				}
			}
		}
		level = next
	}
	return -1
}

// oracleUnlimited searches for the fewest insertions, any colors, that
// clear board, giving up once more than maxStates boards are stored. It
// returns (value, true) when it finds it, and otherwise (lb, false): no
// plan shorter than lb exists. The colors tried are those on the board
// plus the first letter not on it: colors absent from the board are
// interchangeable (relabel one into another).
func oracleUnlimited(board string, maxStates int) (int, bool) {
	seen := make(map[string]bool, 256)
	seen[board] = true
	level := []string{board}
	for depth := 1; ; depth++ {
		var next []string
		for _, b := range level {
			colors := ""
			for c := byte('A'); c <= 'Z'; c++ {
				if strings.IndexByte(b, c) >= 0 {
					colors += string(c)
				}
			}
			for c := byte('A'); c <= 'Z'; c++ {
				if strings.IndexByte(b, c) < 0 {
					colors += string(c)
					break
				}
			}
			for i := 0; i < len(colors); i++ {
				for at := 0; at <= len(b); at++ {
					if at > 0 && b[at-1] == colors[i] {
						continue // the same board as inserting one place left
					}
					nb := oracleInsert(b, at, colors[i])
					if nb == "" {
						return depth, true
					}
					if !seen[nb] {
						if len(seen) >= maxStates {
							return depth, false
						}
						seen[nb] = true
						next = append(next, nb)
					}
				}
			}
		}
		level = next
	}
}

// oracleAmmo is the most balls vanished shooting ammo in order (stopping
// at any time), and the fewest shots that reach it.
func oracleAmmo(board, ammo string) (best, shots int) {
	level := map[string]bool{board: true}
	for k := 0; ; k++ {
		for b := range level {
			if v := len(board) + k - len(b); v > best {
				best, shots = v, k
			}
		}
		if k == len(ammo) {
			return best, shots
		}
		next := map[string]bool{}
		for b := range level {
			for at := 0; at <= len(b); at++ {
				next[oracleInsert(b, at, ammo[k])] = true
			}
		}
		level = next
	}
}
