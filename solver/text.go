package solver

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// CheckText reports, as a *FieldError naming field, a string that
// PostgreSQL cannot store or that arrived damaged: invalid UTF-8, a NUL
// (text and jsonb refuse U+0000), or U+FFFD. encoding/json turns invalid
// UTF-8 bytes and lone surrogate escapes ("\ud800") into U+FFFD while
// decoding, so after decoding U+FFFD is the only trace of them; a string
// that meant a literal U+FFFD is refused too, which no level or label
// needs. Every kind's Parse calls it on the free-form strings of a level
// (ids), the API on labels, so `puzzlectl solve` and the server agree.
func CheckText(field, s string) error {
	switch {
	case !utf8.ValidString(s):
		return Errorf(field, "not valid UTF-8")
	case strings.IndexByte(s, 0) >= 0:
		return Errorf(field, "contains a NUL character (\\u0000)")
	case strings.ContainsRune(s, utf8.RuneError):
		return Errorf(field, "contains invalid UTF-8, a lone surrogate escape or U+FFFD")
	}
	return nil
}

// CheckName is CheckText for strings that are shown as names and written
// into the canonical state text (docs/states.md): labels and their values.
// It also refuses control characters (newlines, tabs, escapes) and the
// Unicode bidirectional controls that make a text display in another order
// than it is stored (U+061C, U+200E, U+200F, U+202A–U+202E,
// U+2066–U+2069), so that what a page or a terminal shows is what is
// stored.
func CheckName(field, s string) error {
	if err := CheckText(field, s); err != nil {
		return err
	}
	for _, r := range s {
		switch {
		case unicode.IsControl(r):
			return Errorf(field, "contains a control character (%U); names must be one line of plain text", r)
		case isBidiControl(r):
			return Errorf(field, "contains a bidirectional control character (%U), which would display the text in another order", r)
		}
	}
	return nil
}

// CheckID is CheckName for ids listed in the canonical state text (sheep
// tile ids), which separates them with spaces: an id holds no white space.
func CheckID(field, s string) error {
	if err := CheckName(field, s); err != nil {
		return err
	}
	if i := strings.IndexFunc(s, unicode.IsSpace); i >= 0 {
		return Errorf(field, "contains white space (%U); the state text separates ids with spaces", []rune(s[i:])[0])
	}
	return nil
}

func isBidiControl(r rune) bool {
	return r == 0x061C || r == 0x200E || r == 0x200F || (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069)
}
