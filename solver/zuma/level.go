package zuma

import (
	"encoding/json"
)

// Mode is how balls are supplied.
type Mode string

// The three modes.
const (
	ModeHand      Mode = "hand"
	ModeUnlimited Mode = "unlimited"
	ModeAmmo      Mode = "ammo"
)

// Level is a parsed, validated zuma level. Hand is sorted.
type Level struct {
	Board string
	Hand  string // hand mode only, sorted
	Ammo  string // ammo mode only, in shot order
	Mode  Mode
}

// Kind implements solver.Level.
func (l *Level) Kind() string { return Name }

// Canonical is the compact JSON of the normalised level, "kind" first.
func (l *Level) Canonical() []byte {
	board, _ := json.Marshal(l.Board)
	out := []byte(`{"kind":"zuma","board":`)
	out = append(out, board...)
	switch l.Mode {
	case ModeHand:
		hand, _ := json.Marshal(l.Hand)
		out = append(append(out, `,"hand":`...), hand...)
	case ModeAmmo:
		ammo, _ := json.Marshal(l.Ammo)
		out = append(append(out, `,"ammo":`...), ammo...)
	}
	return append(out, '}')
}
