// Package twoends solves the take-from-either-end game (docs/formats.md).
//
// Two players alternately take the leftmost or rightmost remaining value of
// a sequence; each plays to maximise own total minus the opponent's. The
// kind reports the optimal value (first − second), both totals, the winner
// and, for short sequences, the canonical optimal line of play.
//
// # Limits
//
//   - 1 ≤ len(values) ≤ [MaxValues] (10,000,000).
//   - |value| ≤ [MaxAbsValue] (10^11), so that every partial sum, every
//     collapsed value and first ± second stay below 10^18 in magnitude and
//     int64 arithmetic is exact. Solve still checks the bound and reports an
//     overflow as an error ([ErrOverflow]) for levels not built by Parse.
//   - The line of play is returned for len(values) ≤ [LineLimit]; above it
//     the value and totals are returned and Details says "line_omitted".
//
// # Algorithms
//
// The value is computed in O(n) time and memory: values are pushed on a
// stack and whenever its top three x, y, z satisfy x ≤ y ≥ z they collapse
// into x − y + z. What remains is valley-shaped (no interior local maximum),
// and on a valley taking the larger end is optimal, so the value is the
// alternating sum of the remaining values in decreasing order.
//
// The line uses O(n) memory and no table. At interval [i, j] with known
// value v, L is optimal iff a[i] − f(i+1, j) = v (ties go to L), so each
// move needs f(i+1, j) only. Two persistent reduction stacks answer it: one
// scanned leftwards from j (valid while L moves follow), one scanned
// rightwards from i+1 (valid while R moves follow); only a change of
// direction rescans the remaining interval, and reading a value walks one
// stack. Once the remaining interval has no interior peak (x ≤ y ≥ z) it is
// a valley, where the canonical move is L iff a[i] ≥ a[j] and costs O(1).
// Random inputs change direction about a hundred times in 20,000 moves, so
// the line costs a few milliseconds; the worst case stays O(n²) (e.g. a
// single peak: tall stacks, about 0.4 s at the line limit on a busy 2-core
// machine).
//
// The textbook O(n²) interval DP lives in the tests only, as the oracle and
// the benchmark baseline.
//
// # Results
//
// Plan is a JSON string of n letters, "L" or "R", the canonical line: at
// every move the mover takes L whenever L is optimal. Details holds
// "first", "second" (totals, int64), "winner" ("first", "second" or "tie")
// and "line_omitted": true when the plan is left out.
package twoends

import "github.com/puzzled/puzzled/solver"

// Name is the value of the "kind" field.
const Name = "twoends"

// Version names the solver build.
const Version = "twoends/1"

// Limits of one level; see the package doc.
const (
	MaxValues   = 10_000_000
	MaxAbsValue = 100_000_000_000 // 10^11
	LineLimit   = 20_000
)

// Proof is Result.Proof of every solved result.
const Proof = "exact"

type kind struct{}

// New returns the twoends kind.
func New() solver.Kind { return kind{} }

func (kind) Name() string    { return Name }
func (kind) Version() string { return Version }

// DefaultBudget: the search is linear, ten seconds is plenty (see
// solver.BudgetDefaulter).
func (kind) DefaultBudget() solver.Budget { return solver.Budget{MaxMS: 10_000} }
