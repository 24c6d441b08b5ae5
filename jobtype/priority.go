package jobtype

import (
	"fmt"

	"github.com/puzzled/puzzled/solver"
)

// Priority is how urgently a job is wanted; each priority is served by an
// asynq queue of the same name (package queue), interactive before bulk.
type Priority string

const (
	// Interactive: a designer waits for the answer. The default of a job
	// submitted alone (POST /v1/jobs).
	Interactive Priority = "interactive"
	// Bulk: one of many levels of a batch. The default of a batch.
	Bulk Priority = "bulk"
)

// Valid reports whether p is a known priority.
func (p Priority) Valid() bool { return p == Interactive || p == Bulk }

// check names what is wrong with a priority a client sent ("" is the
// default, and valid).
func (p Priority) check() error {
	if p != "" && !p.Valid() {
		return &solver.FieldError{Field: "priority", Reason: fmt.Sprintf("must be %q or %q", Interactive, Bulk)}
	}
	return nil
}
