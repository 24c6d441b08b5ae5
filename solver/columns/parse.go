package columns

import (
	"fmt"

	"github.com/puzzled/puzzled/solver"
)

// Level size limits that keep one solve bounded.
const (
	MaxPieces = 1000          // pieces per level
	MaxScore  = 1_000_000_000 // largest score goal
)

// Parse validates and normalises a columns level.
func Parse(data []byte) (*Level, error) {
	var in levelJSON
	if err := solver.DecodeStrict(data, &in); err != nil {
		return nil, err
	}
	if in.Kind != Name {
		return nil, solver.Errorf("kind", "must be %q, got %q", Name, in.Kind)
	}
	l := &Level{Width: in.Width, Height: in.Height, Rule: in.Rule}
	if err := l.parseSize(); err != nil {
		return nil, err
	}
	if err := l.parseBoard(in.Board); err != nil {
		return nil, err
	}
	if err := l.parsePieces(in.Pieces); err != nil {
		return nil, err
	}
	if err := l.parseGoal(in.Goal); err != nil {
		return nil, err
	}
	l.buildCanonical()
	return l, nil
}

func (l *Level) parseSize() error {
	if l.Width < MinWidth || l.Width > MaxWidth {
		return solver.Errorf("width", "must be %d–%d, got %d", MinWidth, MaxWidth, l.Width)
	}
	if l.Height < MinHeight || l.Height > MaxHeight {
		return solver.Errorf("height", "must be %d–%d, got %d", MinHeight, MaxHeight, l.Height)
	}
	switch l.Rule {
	case "":
		l.Rule = RuleLines
	case RuleLines, RuleGroups:
	default:
		return solver.Errorf("rule", "must be %q or %q, got %q", RuleLines, RuleGroups, l.Rule)
	}
	l.geom = geom{w: l.Width, h: l.Height, groups: l.Rule == RuleGroups}
	return nil
}

// parseBoard checks the rows, settledness and the absence of matches, and
// fills l.start. A missing board is an empty one.
func (l *Level) parseBoard(rows []string) error {
	if rows == nil {
		rows = make([]string, l.Height)
		for i := range rows {
			rows[i] = dots(l.Width)
		}
	}
	if len(rows) != l.Height {
		return solver.Errorf("board", "must have height=%d rows, got %d", l.Height, len(rows))
	}
	for i, row := range rows {
		if len(row) != l.Width {
			return solver.Errorf(fmt.Sprintf("board[%d]", i), "must have width=%d cells, got %d bytes", l.Width, len(row))
		}
		for j := 0; j < len(row); j++ {
			if ch := row[j]; ch != '.' && (ch < 'A' || ch > 'Z') {
				return solver.Errorf(fmt.Sprintf("board[%d]", i), "cell %d is %q; use '.' or A–Z", j, ch)
			}
		}
	}
	for c := 0; c < l.Width; c++ {
		for i := 0; i+1 < l.Height; i++ {
			if rows[i][c] != '.' && rows[i+1][c] == '.' {
				return solver.Errorf(fmt.Sprintf("board[%d]", i), "jewel %q in column %d floats above an empty cell; the board must be settled", rows[i][c], c)
			}
		}
	}
	l.Board = rows
	l.start = boardFromRows(rows, l.Width, l.Height)
	return l.checkStable()
}

// checkStable rejects a board that holds a match already.
func (l *Level) checkStable() error {
	var cand, marks cellMask
	for c := 0; c < l.Width; c++ {
		cand[c] = 1<<uint(l.start.h[c]) - 1
	}
	if l.geom.groups {
		l.geom.markGroups(&l.start, &cand, &marks)
	} else {
		l.geom.markLines(&l.start, &cand, &marks)
	}
	for i := 0; i < l.Height; i++ {
		r := l.Height - 1 - i
		for c := 0; c < l.Width; c++ {
			if marks[c]>>uint(r)&1 == 0 {
				continue
			}
			what := "run"
			if l.geom.groups {
				what = "group"
			}
			return solver.Errorf(fmt.Sprintf("board[%d]", i), "%s of 3+ %q — such %ss vanish at once", what, l.Board[i][c], what)
		}
	}
	return nil
}

func (l *Level) parsePieces(pieces []string) error {
	if len(pieces) == 0 {
		return solver.Errorf("pieces", "must list 1–%d pieces", MaxPieces)
	}
	if len(pieces) > MaxPieces {
		return solver.Errorf("pieces", "at most %d pieces, got %d", MaxPieces, len(pieces))
	}
	l.Pieces = pieces
	l.pieces = make([][3]byte, len(pieces))
	for i, p := range pieces {
		ok := len(p) == 3
		for j := 0; ok && j < 3; j++ {
			ok = p[j] >= 'A' && p[j] <= 'Z'
			l.pieces[i][j] = p[j] - 'A' + 1
		}
		if !ok {
			return solver.Errorf(fmt.Sprintf("pieces[%d]", i), "must be 3 jewels A–Z, got %q", p)
		}
	}
	return nil
}

func (l *Level) parseGoal(g *goalJSON) error {
	if g == nil {
		return solver.Errorf("goal", "missing; one of clear, score, target, survive")
	}
	l.Goal.Type = g.Type
	switch g.Type {
	case GoalClear, GoalSurvive, GoalScore, GoalTarget:
	default:
		return solver.Errorf("goal.type", "must be clear, score, target or survive, got %q", g.Type)
	}
	if g.Type != GoalScore && g.Score != nil {
		return solver.Errorf("goal.score", "only for goal type score")
	}
	if g.Type != GoalTarget && g.Cell != nil {
		return solver.Errorf("goal.cell", "only for goal type target")
	}
	switch g.Type {
	case GoalScore:
		if g.Score == nil {
			return solver.Errorf("goal.score", "missing; the total to reach")
		}
		if *g.Score < 1 || *g.Score > MaxScore {
			return solver.Errorf("goal.score", "must be 1–%d, got %d", MaxScore, *g.Score)
		}
		l.Goal.Score = *g.Score
	case GoalTarget:
		if g.Cell == nil {
			return solver.Errorf("goal.cell", "missing; [row, col] of a jewel of the board")
		}
		row, col := g.Cell[0], g.Cell[1]
		if row < 0 || row >= l.Height || col < 0 || col >= l.Width {
			return solver.Errorf("goal.cell", "[%d,%d] is outside the %d×%d board", row, col, l.Height, l.Width)
		}
		if l.Board[row][col] == '.' {
			return solver.Errorf("goal.cell", "[%d,%d] is empty; it must hold a jewel", row, col)
		}
		l.Goal.Row, l.Goal.Col = row, col
	}
	return nil
}

// initialTarget is the target state at the start of the level.
func (l *Level) initialTarget() target {
	if l.Goal.Type != GoalTarget {
		return target{c: -1, r: -1}
	}
	return target{c: int8(l.Goal.Col), r: int8(l.Height - 1 - l.Goal.Row)}
}

func dots(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = '.'
	}
	return string(b)
}

// boardFromRows converts validated, settled rows (top first).
func boardFromRows(rows []string, w, h int) board {
	var b board
	for c := 0; c < w; c++ {
		for r := 0; r < h; r++ {
			ch := rows[h-1-r][c]
			if ch == '.' {
				break
			}
			b.cells[c*stride+r] = ch - 'A' + 1
			b.h[c] = uint8(r + 1)
		}
	}
	return b
}

// rowsFromBoard renders b as rows, top first.
func rowsFromBoard(b *board, w, h int) []string {
	rows := make([]string, h)
	for i := range rows {
		r := h - 1 - i
		line := make([]byte, w)
		for c := range line {
			line[c] = '.'
			if v := b.cells[c*stride+r]; v != 0 {
				line[c] = 'A' + v - 1
			}
		}
		rows[i] = string(line)
	}
	return rows
}
