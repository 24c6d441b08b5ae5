package solver

import (
	"strings"
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
