// Package generate makes levels to a target difficulty: from a template
// level — a sheep layout whose types are dealt anew, a zuma board shape,
// a columns well whose pieces are drawn anew — it deals candidates, solves
// each, replays its plan, rates it, and keeps the solvable ones whose
// score lies in a band, until it has as many as asked (docs/generate.md).
//
// It does no I/O. Candidate i is dealt from a generator seeded with
// (seed, i) alone, and the levels kept are the first count candidates in
// index order that pass, so a run is a function of its request whatever
// the number of workers, and a run stopped after candidate i resumes at
// i+1 with the same outcome.
package generate

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/difficulty"
)

// Dealer is implemented by the kinds whose levels can be dealt anew from
// a template: Redeal returns a new level of the template's shape, a pure
// function of rng and the template.
type Dealer interface {
	Redeal(rng *rand.Rand, template solver.Level) (solver.Level, error)
}

// Limits of a request.
const (
	MaxCount = 1000
	// DefaultCandidatesPerLevel bounds the candidates tried when the
	// request does not: this many per level asked for.
	DefaultCandidatesPerLevel = 50
	MaxCandidates             = 100_000
)

// Request is what to generate.
type Request struct {
	Template solver.Level
	Count    int    // levels to keep, 1..MaxCount
	MinScore int    // band of the score, inclusive, 1..10
	MaxScore int    //
	Seed     uint64 // candidate i is dealt from PCG(Seed, i)
	// MaxCandidates bounds the candidates tried; 0 means
	// DefaultCandidatesPerLevel × Count.
	MaxCandidates int
	// Budget of each candidate's solve; zero means the kind's default
	// (solver.Registry.DefaultBudget).
	Budget solver.Budget
	// Rating options of each candidate (playouts, workers, seed of the
	// figures); zero values are the difficulty package's defaults.
	Rating difficulty.Options
}

// Reasons a candidate is rejected, the keys of Report.Rejected.
const (
	RejectUnsolvable = "unsolvable" // the solver proved it cannot be won
	RejectUnknown    = "unknown"    // the solve's budget ran out first
	RejectBelow      = "below_band" // score under MinScore
	RejectAbove      = "above_band" // score over MaxScore
	RejectUnrated    = "unrated"    // no score (figures not computed)
)

// Candidate is one dealt level and what became of it.
type Candidate struct {
	Index   int // i of PCG(seed, i)
	Level   solver.Level
	Result  solver.Result // the solve, with the plan replayed by Verify
	Figures *difficulty.Figures
	Reject  string // "" when kept
}

// Report sums up a run.
type Report struct {
	Tried    int            // candidates dealt: the last one looked at is Tried-1
	Accepted []Candidate    // in index order
	Rejected map[string]int // by reason; with Accepted they add up to Tried
}

// ErrBadRequest wraps the reasons a request is refused.
var ErrBadRequest = errors.New("generate: bad request")

// Check validates the request against the kind that will run it.
func (r Request) Check(kind solver.Kind) error {
	if _, ok := kind.(Dealer); !ok {
		return fmt.Errorf("%w: kind %q has no dealer", ErrBadRequest, kind.Name())
	}
	if _, ok := kind.(difficulty.Rater); !ok {
		return fmt.Errorf("%w: kind %q is not rated", ErrBadRequest, kind.Name())
	}
	switch {
	case r.Template == nil:
		return fmt.Errorf("%w: no template", ErrBadRequest)
	case r.Count < 1 || r.Count > MaxCount:
		return fmt.Errorf("%w: count %d, want 1 to %d", ErrBadRequest, r.Count, MaxCount)
	case r.MinScore < 1 || r.MaxScore > 10 || r.MinScore > r.MaxScore:
		return fmt.Errorf("%w: score band [%d, %d], want 1 ≤ min ≤ max ≤ 10", ErrBadRequest, r.MinScore, r.MaxScore)
	case r.MaxCandidates < 0 || r.MaxCandidates > MaxCandidates:
		return fmt.Errorf("%w: max candidates %d, want 0 to %d", ErrBadRequest, r.MaxCandidates, MaxCandidates)
	}
	if _, err := kind.(Dealer).Redeal(rand.New(rand.NewPCG(r.Seed, 0)), r.Template); err != nil {
		return fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	return nil
}

func (r Request) maxCandidates() int {
	if r.MaxCandidates > 0 {
		return r.MaxCandidates
	}
	return min(DefaultCandidatesPerLevel*r.Count, MaxCandidates)
}

// Deal is candidate i of the request: the template dealt anew from a
// generator seeded with (Seed, i).
func Deal(kind solver.Kind, r Request, i int) (solver.Level, error) {
	lvl, err := kind.(Dealer).Redeal(rand.New(rand.NewPCG(r.Seed, uint64(i))), r.Template)
	if err != nil {
		return nil, fmt.Errorf("generate: candidate %d: %w", i, err)
	}
	return lvl, nil
}

// Judge says why a candidate whose solve gave res (its plan replayed) and
// whose figures are f (nil: not rated) is not kept; "" keeps it.
func Judge(r Request, res solver.Result, f *difficulty.Figures) string {
	switch {
	case res.Verdict == solver.Unsolvable:
		return RejectUnsolvable
	case res.Verdict != solver.Solved:
		return RejectUnknown
	case f == nil || f.Score == nil:
		return RejectUnrated
	case *f.Score < r.MinScore:
		return RejectBelow
	case *f.Score > r.MaxScore:
		return RejectAbove
	}
	return ""
}

// Try deals candidate i of the request, solves it with the request's
// budget, replays its plan and rates it: the candidate says whether it is
// kept, and why not. An error is a failure of the run (a cancel, a plan
// that fails replay), not a rejection.
func Try(ctx context.Context, kind solver.Kind, r Request, i int) (Candidate, error) {
	lvl, err := Deal(kind, r, i)
	if err != nil {
		return Candidate{}, err
	}
	c := Candidate{Index: i, Level: lvl}
	c.Result, err = kind.Solve(ctx, lvl, solver.Options{Budget: r.Budget})
	if err != nil {
		return Candidate{}, fmt.Errorf("generate: candidate %d: %w", i, err)
	}
	if err := kind.Verify(lvl, c.Result); err != nil {
		return Candidate{}, fmt.Errorf("generate: candidate %d: plan failed replay (solver bug): %w", i, err)
	}
	if c.Result.Verdict == solver.Solved {
		f, err := kind.(difficulty.Rater).Rate(ctx, lvl, c.Result, r.Rating)
		if err := ctx.Err(); err != nil {
			return Candidate{}, fmt.Errorf("generate: candidate %d: %w", i, err)
		}
		if err == nil {
			c.Figures = &f
		}
	}
	c.Reject = Judge(r, c.Result, c.Figures)
	return c, nil
}

// MaxTried is the number of candidates a request may try.
func (r Request) MaxTried() int { return r.maxCandidates() }

// Run tries candidates from index from on, one at a time, until count
// are kept in all (kept counts those of an earlier, stopped run of the
// same request), the candidates run out, or ctx ends. Every candidate
// tried is passed to seen in index order (nil: none); an error from seen
// stops the run and is returned. The report covers the candidates of
// this call.
func Run(ctx context.Context, kind solver.Kind, r Request, from, kept int, seen func(Candidate) error) (Report, error) {
	if err := r.Check(kind); err != nil {
		return Report{}, err
	}
	rep := Report{Rejected: map[string]int{}}
	for i := from; kept < r.Count && i < r.maxCandidates(); i++ {
		c, err := Try(ctx, kind, r, i)
		if err != nil {
			return rep, err
		}
		rep.Tried++
		if c.Reject != "" {
			rep.Rejected[c.Reject]++
		} else {
			rep.Accepted = append(rep.Accepted, c)
			kept++
		}
		if seen != nil {
			if err := seen(c); err != nil {
				return rep, err
			}
		}
	}
	return rep, nil
}
