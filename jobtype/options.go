package jobtype

import (
	"encoding/json"

	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/difficulty"
)

// Options are a job's settings besides its level, as a client sends them:
// the fields around the level of POST /v1/jobs, a batch's options (the
// fields of its object form, or the query parameters of the others), and
// puzzlectl's flags. [Options.Normalize] is the one check of them and
// applies their defaults.
type Options struct {
	Priority Priority      `json:"priority,omitempty"` // "": the form's default
	Budget   solver.Budget `json:"budget,omitzero"`    // zero: the kind's default
	// Difficulty sets the playouts of the difficulty figures; nil: the
	// default (see Normalize).
	Difficulty *Difficulty     `json:"difficulty,omitempty"`
	Labels     json.RawMessage `json:"labels,omitempty"`
	// Callbacks are URLs that get signed events when the job or batch is
	// finished (docs/webhooks.md); the caller's token needs a webhook secret.
	Callbacks []Callback `json:"callbacks,omitempty"`
	// Project names the project the job or batch goes to; "" lets the
	// server choose (the token's only project, else 'default').
	Project string `json:"project,omitempty"`
}

// Difficulty is the "difficulty" option of a job or batch: how many
// playouts per player its difficulty figures use (docs/difficulty.md);
// 0 means no figures.
type Difficulty struct {
	Playouts int `json:"playouts"`
}

// Form is how a job is submitted: its defaults depend on it.
type Form int

const (
	Alone   Form = iota // one job, POST /v1/jobs
	InBatch             // one of a batch, POST /v1/batches
)

// DefaultPriority is the priority of a job that names none: interactive
// alone (a designer waits for it), bulk in a batch.
func (f Form) DefaultPriority() Priority {
	if f == InBatch {
		return Bulk
	}
	return Interactive
}

// MaxBudgetMS caps a job's time budget: one hour.
const MaxBudgetMS = 3_600_000

// Validate checks the options as sent, naming the first field at fault in
// a *solver.FieldError.
func (o Options) Validate() error {
	if err := o.Priority.check(); err != nil {
		return err
	}
	switch b := o.Budget; {
	case b.MaxMS < 0 || b.MaxMS > MaxBudgetMS:
		return solver.Errorf("budget.max_ms", "must be between 0 and %d", MaxBudgetMS)
	case b.MaxNodes < 0:
		return solver.Errorf("budget.max_nodes", "must not be negative")
	}
	if d := o.Difficulty; d != nil && (d.Playouts < 0 || d.Playouts > difficulty.MaxPlayouts) {
		return solver.Errorf("difficulty.playouts", "must be between 0 (no figures) and %d", difficulty.MaxPlayouts)
	}
	if field, reason := CheckLabels(o.Labels); field != "" {
		return &solver.FieldError{Field: field, Reason: reason}
	}
	return nil
}

// Normalize validates the options and applies the defaults of a job
// submitted in form f. It is the one place they are applied, for every
// entry point:
//
//   - the priority: f.DefaultPriority();
//   - the difficulty: none ({"playouts": 0}) for a bulk job that asked
//     nothing, since figures cost 30–2,800× a fast solve
//     (docs/difficulty.md) and a bulk batch of easy levels would mostly
//     measure difficulty; an interactive job keeps nil, which the worker
//     reads as its own default (--difficulty-playouts), because a
//     designer asking about one level wants them.
//
// The budget is kept as sent: zero means the kind's default, which the
// solve applies (solver.BudgetFor).
func (o *Options) Normalize(f Form) error {
	if err := o.Validate(); err != nil {
		return err
	}
	if o.Priority == "" {
		o.Priority = f.DefaultPriority()
	}
	if o.Difficulty == nil && o.Priority == Bulk {
		o.Difficulty = &Difficulty{Playouts: 0}
	}
	return nil
}

// Playouts is the difficulty option as stored with a job: nil for the
// worker's default, else the playouts per player (0: no figures).
func (o Options) Playouts() *int {
	if o.Difficulty == nil {
		return nil
	}
	n := o.Difficulty.Playouts
	return &n
}

// Spec is one job as a client asks for it: a level and its options.
type Spec struct {
	Level json.RawMessage // the level's JSON as sent
	// Kind is the level's kind when the caller has read it already (the
	// bare form of POST /v1/jobs); "" lets the registry read or detect it.
	Kind string
	Options
}

// Normalize normalizes the options (Options.Normalize) and then parses the
// level (ParseLevel): the whole check of a job, the same for the API and
// for puzzlectl before it sends one.
func (s *Spec) Normalize(reg *solver.Registry, f Form) (solver.Level, error) {
	if err := s.Options.Normalize(f); err != nil {
		return nil, err
	}
	return s.ParseLevel(reg)
}

// ParseLevel parses and validates the spec's level with reg: as Kind when
// it is known, else by the level's "kind" field or the registry's
// detector (solver.Registry.Parse).
func (s Spec) ParseLevel(reg *solver.Registry) (solver.Level, error) {
	if s.Kind != "" {
		return reg.ParseAs(s.Kind, s.Level)
	}
	return reg.Parse(s.Level)
}
