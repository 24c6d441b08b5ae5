// Package solver holds what every puzzle kind shares: the [Kind] interface,
// the [Registry] of kinds, levels, results, budgets and checkpoint hooks.
//
// The package and every kind below it (solver/<kind>) do no I/O: no network,
// no database, no logging. That keeps each solver testable in microseconds and
// usable from the CLI without a server. Each kind's rules and level format
// are in docs/formats.md. The contract every kind honours:
//
//   - Solve honours ctx (returns within ~100 ms of cancel) and the [Budget];
//     when the budget runs out the verdict is [Unknown], never a guess.
//   - Same level and options give the same result.
//   - At safe points, at most every Options.CheckpointEvery, the solver hands
//     an opaque, versioned blob to Options.Checkpoint; given Options.Resume it
//     continues from there, node counts continuing.
//   - Solve does not verify its own result: whoever runs a solve checks the
//     result with the kind's simulator ([Kind.Verify]) once, before trusting
//     it. The worker does so before it stores a result (a failure ends the
//     job failed as a solver bug), puzzlectl before it prints one, and the
//     kinds' tests after every solve. Checking inside Solve as well would
//     replay every plan twice.
package solver

import (
	"context"
	"encoding/json"
	"math"
	"time"
)

// Verdict is the outcome of a solve.
type Verdict string

const (
	Solved     Verdict = "solved"     // a verified plan reaches the goal
	Unsolvable Verdict = "unsolvable" // proven impossible; Result.Proof says how
	Unknown    Verdict = "unknown"    // the budget ran out before either was shown
)

// Definitive reports whether v is final for a level: solved or unsolvable.
// Unknown results depend on the budget and are never reused as a cache.
func (v Verdict) Definitive() bool { return v == Solved || v == Unsolvable }

// Budget bounds one solve. Zero fields mean "no limit" (ctx still applies).
type Budget struct {
	MaxNodes int64 `json:"max_nodes,omitempty"`
	MaxMS    int64 `json:"max_ms,omitempty"`
}

// DefaultMaxMS is the time budget of a job that names none, unless its
// kind says otherwise ([BudgetDefaulter]); no kind's default is longer.
const DefaultMaxMS = 60_000

// BudgetDefaulter is implemented by a kind whose jobs get another default
// budget than DefaultMaxMS milliseconds (twoends, linear time: less).
type BudgetDefaulter interface {
	DefaultBudget() Budget
}

// Options are the per-call settings of [Kind.Solve].
type Options struct {
	Budget Budget

	// CheckpointEvery is the least time between two calls of Checkpoint.
	// Zero means the solver never checkpoints.
	CheckpointEvery time.Duration
	// Checkpoint receives an opaque, versioned state blob at a safe point.
	// It must not keep blob after returning.
	Checkpoint func(blob []byte)
	// Resume is a blob earlier handed to Checkpoint for the same level and
	// solver version. The solver continues from it.
	Resume []byte
	// Threads is how many cores the search may use at once (0 and 1: one).
	// A kind that cannot use more ignores it; sheep runs a second search
	// beside the first on hard levels (a portfolio), the first to decide
	// winning. It never changes what a verdict means, only how soon it
	// comes; a search with a node budget uses one core, so that its result
	// stays a function of the level and the budget.
	Threads int
}

// Stats describe the work a solve did. Nodes and ElapsedMS continue across
// resumes: they count all attempts together.
type Stats struct {
	Nodes       int64 `json:"nodes"`
	Depth       int   `json:"depth"`
	ElapsedMS   int64 `json:"elapsed_ms"`
	Checkpoints int   `json:"checkpoints"`
	Resumed     bool  `json:"resumed"`
	// Bounds on the optimum where a kind proves them (e.g. zuma unlimited).
	LowerBound *int64 `json:"lower_bound,omitempty"`
	UpperBound *int64 `json:"upper_bound,omitempty"`
}

// Result is what a solve reports.
type Result struct {
	Verdict Verdict `json:"verdict"`
	// Value is the kind's objective where it has one: insertions (zuma),
	// first minus second (twoends), score (columns).
	Value *int64 `json:"value,omitempty"`
	// Optimal is true only when Value is proven optimal.
	Optimal bool `json:"optimal"`
	// Proof says how unsolvability or optimality was shown
	// ("exhaustive", "precheck:type-count", "dp", ...).
	Proof string `json:"proof,omitempty"`
	// Plan is the kind's plan JSON. For unknown results it may hold the best
	// partial line found.
	Plan json.RawMessage `json:"plan,omitempty"`
	// Details carries kind-specific outcomes (twoends totals and winner,
	// zuma cleared, columns best score, ...).
	Details map[string]any `json:"details,omitempty"`
	Stats   Stats          `json:"stats"`
	// Difficulty holds the figures of package solver/difficulty, computed
	// after a definitive solve by kinds that rate levels; absent otherwise.
	// Solve never sets it and Verify ignores it.
	Difficulty json.RawMessage `json:"difficulty,omitempty"`
}

// Level is a parsed, validated, normalised level of some kind.
type Level interface {
	// Kind is the registered name of the level's kind.
	Kind() string
	// Canonical is the canonical JSON of the level: equal levels give equal
	// bytes, whatever the input format. Its SHA-256 identifies the level.
	Canonical() []byte
}

// Kind is one puzzle kind: parsing, solving and verification.
type Kind interface {
	// Name is the value of the "kind" field, e.g. "zuma".
	Name() string
	// Version names the solver build; a stored result is reused only when
	// its version equals the current one.
	Version() string
	// Parse validates and normalises a level. Errors are *FieldError where a
	// field is at fault.
	Parse(data []byte) (Level, error)
	// Solve runs the kind's solver. On ctx cancellation it returns the
	// partial result (verdict Unknown) and an error wrapping ctx.Err().
	Solve(ctx context.Context, lvl Level, opts Options) (Result, error)
	// Verify replays res.Plan through the simulator and checks that it
	// reaches what res claims. A non-nil error means the solver is wrong.
	Verify(lvl Level, res Result) error
}

// Int64 returns a pointer to v, for Result.Value and the Stats bounds.
func Int64(v int64) *int64 { return &v }

// DetailInt reads an integer from Result.Details as a solver stores it
// (int, int64) or as it comes back from JSON (float64, json.Number); a
// value that is not an exact integer gives false.
func DetailInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int:
		return int64(x), true
	case int64:
		return x, true
	case float64:
		if x == math.Trunc(x) && math.Abs(x) <= 1<<53 {
			return int64(x), true
		}
	case json.Number:
		n, err := x.Int64()
		return n, err == nil
	}
	return 0, false
}
