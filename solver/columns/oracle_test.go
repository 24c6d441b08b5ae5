package columns

// The oracle: a plain simulator on a grid of bytes (row 0 = top, as in the
// JSON) that rescans the whole board at every chain step, and a plain
// recursion over all 3×width moves of every piece, without hashing or
// pruning. It shares no code with the package.

type oracleState struct {
	grid   [][]byte // '.' or 'A'–'Z'
	target [2]int   // row, column of the target jewel; row -1 when there is none
}

func oracleStart(l *Level) oracleState {
	s := oracleState{target: [2]int{-1, -1}}
	for _, row := range l.Board {
		s.grid = append(s.grid, []byte(row))
	}
	if l.Goal.Type == GoalTarget {
		s.target = [2]int{l.Goal.Row, l.Goal.Col}
	}
	return s
}

func (s oracleState) clone() oracleState {
	c := oracleState{target: s.target, grid: make([][]byte, len(s.grid))}
	w := len(s.grid[0])
	flat := make([]byte, len(s.grid)*w)
	for i := range s.grid {
		c.grid[i] = flat[i*w : (i+1)*w]
		copy(c.grid[i], s.grid[i])
	}
	return c
}

func (s oracleState) hasTarget() bool { return s.target[0] >= 0 }

func (s oracleState) empty() bool {
	for _, row := range s.grid {
		for _, ch := range row {
			if ch != '.' {
				return false
			}
		}
	}
	return true
}

// oracleDrop plays piece (top to bottom) with rotation rot in column col.
// It returns the new state, the points and false on a top-out.
func oracleDrop(s oracleState, rule string, piece string, col, rot int) (oracleState, int, bool) {
	var rotated string
	switch rot {
	case 0:
		rotated = piece
	case 1:
		rotated = piece[2:] + piece[:2] // ABC -> CAB
	case 2:
		rotated = piece[1:] + piece[:1] // ABC -> BCA
	}
	n := s.clone()
	emptyCells := 0
	for emptyCells < len(n.grid) && n.grid[emptyCells][col] == '.' {
		emptyCells++
	}
	if emptyCells < 3 {
		return s, 0, false
	}
	for k := 0; k < 3; k++ {
		n.grid[emptyCells-3+k][col] = rotated[k]
	}
	points := 0
	for step := 1; ; step++ {
		marked := oracleMatches(n.grid, rule)
		count := 0
		for i := range n.grid {
			for j := range n.grid[i] {
				if marked[i*len(n.grid[i])+j] {
					count++
					n.grid[i][j] = '.'
					if n.target == [2]int{i, j} {
						n.target = [2]int{-1, -1}
					}
				}
			}
		}
		if count == 0 {
			return n, points, true
		}
		points += count * step
		oracleGravity(&n)
	}
}

// oracleMatches marks, row-major, every cell to remove.
func oracleMatches(grid [][]byte, rule string) []bool {
	h, w := len(grid), len(grid[0])
	marked := make([]bool, h*w)
	inside := func(i, j int) bool { return i >= 0 && i < h && j >= 0 && j < w }
	if rule == RuleLines {
		dirs := [][2]int{{0, 1}, {1, 0}, {1, 1}, {1, -1}}
		for i := 0; i < h; i++ {
			for j := 0; j < w; j++ {
				for _, d := range dirs {
					i2, j2, i3, j3 := i+d[0], j+d[1], i+2*d[0], j+2*d[1]
					if grid[i][j] != '.' && inside(i3, j3) && grid[i2][j2] == grid[i][j] && grid[i3][j3] == grid[i][j] {
						marked[i*w+j], marked[i2*w+j2], marked[i3*w+j3] = true, true, true
					}
				}
			}
		}
		return marked
	}
	seen := make([]bool, h*w)
	var group [][2]int
	for i := 0; i < h; i++ {
		for j := 0; j < w; j++ {
			if grid[i][j] == '.' || seen[i*w+j] {
				continue
			}
			group = append(group[:0], [2]int{i, j})
			seen[i*w+j] = true
			for k := 0; k < len(group); k++ {
				for di := -1; di <= 1; di++ {
					for dj := -1; dj <= 1; dj++ {
						a, b := group[k][0]+di, group[k][1]+dj
						if inside(a, b) && !seen[a*w+b] && grid[a][b] == grid[i][j] {
							seen[a*w+b] = true
							group = append(group, [2]int{a, b})
						}
					}
				}
			}
			if len(group) >= 3 {
				for _, c := range group {
					marked[c[0]*w+c[1]] = true
				}
			}
		}
	}
	return marked
}

// oracleGravity moves every jewel down over the empty cells below it, one
// column at a time, bottom row first.
func oracleGravity(s *oracleState) {
	h := len(s.grid)
	for j := range s.grid[0] {
		dst := h - 1
		for i := h - 1; i >= 0; i-- {
			if s.grid[i][j] == '.' {
				continue
			}
			if s.target == [2]int{i, j} {
				s.target = [2]int{dst, j}
			}
			s.grid[dst][j] = s.grid[i][j]
			if dst != i {
				s.grid[i][j] = '.'
			}
			dst--
		}
	}
}

// oracleAnswer is what the oracle finds for one board and piece list,
// for every goal at once.
type oracleAnswer struct {
	clear, target, survive bool // reachable
	best                   int  // highest score of any line
}

// oracleSolve explores every sequence of moves on l (whose goal must be a
// target, to say which jewel is the target).
func oracleSolve(l *Level) oracleAnswer {
	var a oracleAnswer
	oracleRec(l, oracleStart(l), 0, 0, &a)
	return a
}

func oracleRec(l *Level, s oracleState, i, score int, a *oracleAnswer) {
	a.best = max(a.best, score)
	if i == len(l.Pieces) {
		return
	}
	for col := 0; col < l.Width; col++ {
		for rot := 0; rot < 3; rot++ {
			n, pts, ok := oracleDrop(s, l.Rule, l.Pieces[i], col, rot)
			if !ok {
				continue
			}
			a.clear = a.clear || n.empty()
			a.target = a.target || !n.hasTarget()
			a.survive = a.survive || i+1 == len(l.Pieces)
			oracleRec(l, n, i+1, score+pts, a)
		}
	}
}
