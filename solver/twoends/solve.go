package twoends

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/puzzled/puzzled/solver"
)

// ErrOverflow is returned when a level's values could overflow int64 sums.
// Parse's limits rule it out; it guards levels built any other way.
var ErrOverflow = errors.New("twoends: values too large, int64 sums could overflow")

// ErrLevel is returned when Solve or Verify gets a level of another kind.
var ErrLevel = errors.New("twoends: not a twoends level")

// Solve implements solver.Kind. Nodes are values scanned by the value
// phase plus moves chosen by the line phase.
func (kind) Solve(ctx context.Context, lvl solver.Level, opts solver.Options) (solver.Result, error) {
	unknown := solver.Result{Verdict: solver.Unknown}
	l, ok := lvl.(*Level)
	if !ok {
		return unknown, ErrLevel
	}
	total, err := checkedTotal(l.values)
	if err != nil {
		return unknown, err
	}
	m, err := solver.NewMeter(ctx, opts)
	if err != nil {
		return unknown, fmt.Errorf("twoends: %w", err)
	}
	s := &search{a: l.values, m: m}
	if p := m.Resumed(); p != nil {
		if s.state, err = decodeState(p, len(l.values)); err != nil {
			return unknown, err
		}
	}
	if !s.scanValue() || !s.buildLine() {
		s.checkpoint()
		unknown.Stats = m.Stats(len(s.line))
		return unknown, m.Err()
	}
	res := solvedResult(len(l.values), total, s.value, s.line)
	res.Stats = m.Stats(len(l.values))
	return res, nil
}

// solvedResult builds the result for value and the line (nil if omitted).
func solvedResult(n int, total, value int64, line []byte) solver.Result {
	first, second := (total+value)/2, (total-value)/2
	details := map[string]any{"first": first, "second": second, "winner": winner(value)}
	var plan []byte
	if n > LineLimit {
		details["line_omitted"] = true
	} else {
		plan = make([]byte, 0, len(line)+2)
		plan = append(append(append(plan, '"'), line...), '"')
	}
	return solver.Result{
		Verdict: solver.Solved,
		Value:   solver.Int64(value),
		Optimal: true,
		Proof:   Proof,
		Plan:    plan,
		Details: details,
	}
}

func winner(value int64) string {
	switch {
	case value > 0:
		return "first"
	case value < 0:
		return "second"
	}
	return "tie"
}

// checkedTotal returns the sum of values after checking that the sum of
// their magnitudes is at most MaxInt64/2: then every collapsed value, the
// game value and total ± value fit in int64.
func checkedTotal(values []int64) (int64, error) {
	var abs, total uint64
	for _, v := range values {
		m := uint64(v)
		if v < 0 {
			m = -m
		}
		abs += m
		if m > math.MaxInt64/2 || abs > math.MaxInt64/2 {
			return 0, ErrOverflow
		}
		total += uint64(v)
	}
	return int64(total), nil
}
