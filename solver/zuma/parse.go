package zuma

import (
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/puzzled/puzzled/solver"
)

type rawLevel struct {
	Kind  *string `json:"kind"`
	Board *string `json:"board"`
	Hand  *string `json:"hand"`
	Ammo  *string `json:"ammo"`
}

// Parse validates and normalises a zuma level.
func Parse(data []byte) (*Level, error) {
	var raw rawLevel
	if err := solver.DecodeStrict(data, &raw); err != nil {
		return nil, err
	}
	if raw.Kind == nil || *raw.Kind != Name {
		return nil, solver.Errorf("kind", "must be %q", Name)
	}
	if raw.Hand != nil && raw.Ammo != nil {
		return nil, solver.Errorf("ammo", "hand and ammo are mutually exclusive")
	}
	lvl := &Level{Mode: ModeUnlimited}
	limit := MaxBoardUnlimited
	switch {
	case raw.Hand != nil:
		lvl.Mode, limit = ModeHand, MaxBoard
		hand, err := parseBalls("hand", *raw.Hand, MaxHand)
		if err != nil {
			return nil, err
		}
		b := []byte(hand)
		sort.Slice(b, func(i, j int) bool { return b[i] < b[j] })
		lvl.Hand = string(b)
	case raw.Ammo != nil:
		lvl.Mode, limit = ModeAmmo, MaxBoard
		ammo, err := parseBalls("ammo", *raw.Ammo, MaxHand)
		if err != nil {
			return nil, err
		}
		lvl.Ammo = ammo
	}
	if raw.Board == nil {
		return nil, solver.Errorf("board", "missing")
	}
	board, err := parseBoard(*raw.Board, limit, lvl.Mode)
	if err != nil {
		return nil, err
	}
	lvl.Board = board
	return lvl, nil
}

func parseBoard(s string, limit int, mode Mode) (string, error) {
	if len(s) == 0 {
		return "", solver.Errorf("board", "must hold at least one ball")
	}
	if len(s) > limit {
		return "", solver.Errorf("board", "%d balls, at most %d in %s mode", len(s), limit, mode)
	}
	if _, err := parseBalls("board", s, limit); err != nil {
		return "", err
	}
	for i := 2; i < len(s); i++ {
		if s[i] == s[i-1] && s[i] == s[i-2] {
			return "", solver.Errorf(fieldAt("board", i), "run of 3+ '%c' — such runs vanish at once", s[i])
		}
	}
	return s, nil
}

func parseBalls(field, s string, limit int) (string, error) {
	if len(s) > limit {
		return "", solver.Errorf(field, "%d balls, at most %d", len(s), limit)
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			r, _ := utf8.DecodeRuneInString(s[i:])
			return "", solver.Errorf(fieldAt(field, i), "%q is not a color; colors are A–Z", r)
		}
	}
	return s, nil
}

func fieldAt(field string, i int) string {
	return field + "[" + strconv.Itoa(i) + "]"
}
