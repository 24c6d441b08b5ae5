// Package repair looks for the smallest change that makes an unsolvable
// level solvable: it tries the kind's edits of size 1, then of size 2, …
// up to a limit, solves each edited level, replays its plan, and keeps the
// edits that win (docs/generate.md). Sheep swaps the types of two tiles
// (size 1) or rotates those of three (size 2); zuma adds a ball to the
// hand or changes one (size 1); columns changes one jewel of one piece
// (size 1).
//
// It does no I/O. The edits come in a fixed order, so candidate i is the
// same in every run and a run stopped after candidate i resumes at i+1.
// Once an edit of some size wins, no larger edit is tried: the answer is
// the first edits that make the level solvable, and "none within k edits"
// is given only when every edit up to size k was solved and none won.
package repair

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/puzzled/puzzled/solver"
)

// Editor and Edit are the kinds' side of a repair (package solver).
type (
	Editor = solver.Editor
	Edit   = solver.Edit
)

// Limits of a request.
const (
	DefaultCount  = 3
	MaxCount      = 100
	MaxCandidates = 1_000_000
)

// Request is what to repair.
type Request struct {
	Level    solver.Level
	MaxEdits int // largest edit size; 0 means the kind's largest
	Count    int // fixes to keep at most; 0 means DefaultCount
	// MaxCandidates bounds the edits tried (0: no bound but the sizes).
	MaxCandidates int
	Budget        solver.Budget // of each candidate's solve
}

// Reasons a candidate is not kept.
const (
	RejectUnsolvable = "unsolvable"
	RejectUnknown    = "unknown"
)

// ErrBadRequest wraps the reasons a request is refused.
var ErrBadRequest = errors.New("repair: bad request")

// Normalize checks the request against the kind and fills its defaults.
func (r Request) Normalize(kind solver.Kind) (Request, error) {
	ed, ok := kind.(Editor)
	if !ok {
		return r, fmt.Errorf("%w: kind %q has no edits", ErrBadRequest, kind.Name())
	}
	switch {
	case r.Level == nil:
		return r, fmt.Errorf("%w: no level", ErrBadRequest)
	case r.MaxEdits < 0 || r.MaxEdits > ed.MaxEditSize():
		return r, fmt.Errorf("%w: max edits %d, want 1 to %d", ErrBadRequest, r.MaxEdits, ed.MaxEditSize())
	case r.Count < 0 || r.Count > MaxCount:
		return r, fmt.Errorf("%w: count %d, want 1 to %d", ErrBadRequest, r.Count, MaxCount)
	case r.MaxCandidates < 0 || r.MaxCandidates > MaxCandidates:
		return r, fmt.Errorf("%w: max candidates %d, want 0 to %d", ErrBadRequest, r.MaxCandidates, MaxCandidates)
	}
	if r.MaxEdits == 0 {
		r.MaxEdits = ed.MaxEditSize()
	}
	if r.Count == 0 {
		r.Count = DefaultCount
	}
	return r, nil
}

// Candidate is edit Index of the sequence (sizes 1, 2, … in order) and,
// once solved, what became of it.
type Candidate struct {
	Index  int
	Size   int
	First  bool // the first edit of its size
	Desc   string
	Level  solver.Level
	Result solver.Result
	Reject string // "" when the edit makes the level solvable
}

// Candidates yields the edits of sizes 1..r.MaxEdits in order with their
// index, from index from on (the edits before it are skipped unbuilt).
func Candidates(kind solver.Kind, r Request, from int) iter.Seq2[Candidate, error] {
	return func(yield func(Candidate, error) bool) {
		ed := kind.(Editor)
		i := 0
		for size := 1; size <= r.MaxEdits; size++ {
			first := true
			for e := range ed.Edits(r.Level, size) {
				if i < from {
					i, first = i+1, false
					continue
				}
				lvl, err := e.Apply()
				if !yield(Candidate{Index: i, Size: size, First: first, Desc: e.Desc, Level: lvl}, err) {
					return
				}
				i, first = i+1, false
			}
		}
	}
}

// Judge says why an edit whose solve gave res (its plan replayed) is not
// kept; "" keeps it.
func Judge(res solver.Result) string {
	switch res.Verdict {
	case solver.Solved:
		return ""
	case solver.Unsolvable:
		return RejectUnsolvable
	}
	return RejectUnknown
}

// Report sums up a run.
type Report struct {
	Tried    int
	Fixes    []Candidate
	Rejected map[string]int
	// Complete: every edit up to the size of the first fix (or up to
	// MaxEdits when there is none) was tried. With no fix and no unknown
	// edit, it proves that no edit of size MaxEdits or less makes the
	// level solvable.
	Complete bool
}

// Run tries the edits from candidate from on (kept fixes already found by
// an earlier, stopped run of the same request), until r.Count fixes, the
// end of the size of the first fix, the end of the edits or of
// r.MaxCandidates. Each candidate tried is passed to seen (nil: none); an
// error from seen stops the run and is returned.
func Run(ctx context.Context, kind solver.Kind, r Request, from, kept int, seen func(Candidate) error) (Report, error) {
	r, err := r.Normalize(kind)
	if err != nil {
		return Report{}, err
	}
	rep := Report{Rejected: map[string]int{}, Complete: true}
	for c, err := range Candidates(kind, r, from) {
		if err != nil {
			return rep, fmt.Errorf("repair: edit %d (%s): %w", c.Index, c.Desc, err)
		}
		if Stop(r, c, kept) {
			rep.Complete = kept > 0 && c.First
			return rep, nil
		}
		c.Result, err = kind.Solve(ctx, c.Level, solver.Options{Budget: r.Budget})
		if err != nil {
			return rep, fmt.Errorf("repair: edit %d: %w", c.Index, err)
		}
		if err := kind.Verify(c.Level, c.Result); err != nil {
			return rep, fmt.Errorf("repair: edit %d: plan failed replay (solver bug): %w", c.Index, err)
		}
		rep.Tried++
		if c.Reject = Judge(c.Result); c.Reject != "" {
			rep.Rejected[c.Reject]++
		} else {
			rep.Fixes = append(rep.Fixes, c)
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

// Stop reports whether the run ends before candidate c, kept fixes
// found: enough fixes, a larger edit than the fixes found (edits come by
// size, so a fix found and c the first of its size say it), or past
// MaxCandidates.
func Stop(r Request, c Candidate, kept int) bool {
	return kept >= r.Count || (kept > 0 && c.First) || (r.MaxCandidates > 0 && c.Index >= r.MaxCandidates)
}
