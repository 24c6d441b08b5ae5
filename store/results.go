package store

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/puzzled/puzzled/solver"
)

// Result is a stored solver result.
type Result struct {
	solver.Result
	SolverVersion string
	CreatedAt     time.Time
}

// resultColumns lists the result columns of table alias a in the order
// resultRow.dest scans them.
func resultColumns(a string) string {
	return fmt.Sprintf("%[1]s.verdict, %[1]s.value, %[1]s.optimal, %[1]s.proof, %[1]s.plan, "+
		"%[1]s.details, %[1]s.stats, %[1]s.difficulty, %[1]s.solver_version, %[1]s.created_at", a)
}

// resultRow scans a result that may be missing (LEFT JOIN).
type resultRow struct {
	verdict, proof, version *string
	value                   *int64
	optimal                 *bool
	plan, details, stats    []byte
	difficulty              []byte
	createdAt               *time.Time
}

func (r *resultRow) dest() []any {
	return []any{&r.verdict, &r.value, &r.optimal, &r.proof, &r.plan, &r.details, &r.stats, &r.difficulty, &r.version, &r.createdAt}
}

func (r *resultRow) result() *Result {
	if r.verdict == nil {
		return nil
	}
	res := &Result{SolverVersion: deref(r.version), CreatedAt: *r.createdAt}
	res.Verdict = solver.Verdict(*r.verdict)
	res.Value = r.value
	res.Optimal = r.optimal != nil && *r.optimal
	res.Proof = deref(r.proof)
	res.Plan = r.plan
	res.Difficulty = r.difficulty
	// Both columns are written by this package from valid JSON.
	_ = json.Unmarshal(r.details, &res.Details)
	_ = json.Unmarshal(r.stats, &res.Stats)
	return res
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// resultArgs are the values of the result columns written by FinishJobs.
type resultArgs struct {
	verdict string
	value   *int64
	optimal bool
	proof   *string
	plan    []byte
	details []byte
	stats   []byte
}

// difficultyArg is the difficulty column's value: NULL when absent.
func difficultyArg(res solver.Result) *string {
	if len(res.Difficulty) == 0 {
		return nil
	}
	s := string(res.Difficulty)
	return &s
}

func newResultArgs(res solver.Result) (resultArgs, error) {
	a := resultArgs{verdict: string(res.Verdict), value: res.Value, optimal: res.Optimal}
	if res.Proof != "" {
		a.proof = &res.Proof
	}
	if len(res.Plan) > 0 {
		a.plan = res.Plan
	}
	var err error
	if res.Details != nil {
		if a.details, err = json.Marshal(res.Details); err != nil {
			return a, fmt.Errorf("store: encode details: %w", err)
		}
	}
	if a.stats, err = json.Marshal(res.Stats); err != nil {
		return a, fmt.Errorf("store: encode stats: %w", err)
	}
	return a, nil
}
