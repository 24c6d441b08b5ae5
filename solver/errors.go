package solver

import (
	"fmt"
)

// FieldError is a validation error that names the offending field, e.g.
// `board[7]: run of 3+ 'R' — such runs vanish at once`.
type FieldError struct {
	Field  string
	Reason string
}

func (e *FieldError) Error() string {
	if e.Field == "" {
		return e.Reason
	}
	return e.Field + ": " + e.Reason
}

// Errorf builds a *FieldError for field with a formatted reason.
func Errorf(field, format string, args ...any) error {
	return &FieldError{Field: field, Reason: fmt.Sprintf(format, args...)}
}
