package twoends

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/puzzled/puzzled/solver"
)

// ErrVerify wraps every claim of a result that Verify finds false.
var ErrVerify = errors.New("twoends: result does not verify")

// Verify implements solver.Kind. For a solved result it replays the line,
// recomputes both totals and checks them against Details and Value, and
// checks Value against the linear-time optimum (also when the line is
// omitted). An unknown result may carry no value and at most a legal
// prefix of a line.
func (kind) Verify(lvl solver.Level, res solver.Result) error {
	l, ok := lvl.(*Level)
	if !ok {
		return ErrLevel
	}
	total, err := checkedTotal(l.values)
	if err != nil {
		return err
	}
	switch res.Verdict {
	case solver.Solved:
		return verifySolved(l.values, total, res)
	case solver.Unknown:
		return verifyUnknown(l.values, res)
	}
	return fmt.Errorf("%w: verdict %q, want solved or unknown", ErrVerify, res.Verdict)
}

func verifyUnknown(a []int64, res solver.Result) error {
	if res.Value != nil || res.Optimal || len(res.Details) != 0 {
		return fmt.Errorf("%w: unknown result claims a value or details", ErrVerify)
	}
	if len(res.Plan) == 0 {
		return nil
	}
	var line string
	if err := json.Unmarshal(res.Plan, &line); err != nil {
		return fmt.Errorf("%w: plan is not a JSON string: %w", ErrVerify, err)
	}
	if len(line) > len(a) {
		return fmt.Errorf("%w: partial line longer than the level", ErrVerify)
	}
	if _, _, err := replayLine(a, line, len(line)); err != nil {
		return fmt.Errorf("%w: %w", ErrVerify, err)
	}
	return nil
}

func verifySolved(a []int64, total int64, res solver.Result) error {
	if res.Value == nil || !res.Optimal || res.Proof != Proof {
		return fmt.Errorf("%w: solved result needs value, optimal and proof %q", ErrVerify, Proof)
	}
	d, err := readDetails(res.Details)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrVerify, err)
	}
	optimum, _ := gameValue(a, nil)
	first, second := (total+optimum)/2, (total-optimum)/2
	if d.omitted {
		if len(a) <= LineLimit || len(res.Plan) != 0 {
			return fmt.Errorf("%w: line omitted for %d values (limit %d) or plan present", ErrVerify, len(a), LineLimit)
		}
	} else {
		if len(a) > LineLimit {
			return fmt.Errorf("%w: %d values exceed the line limit %d but line_omitted is not set", ErrVerify, len(a), LineLimit)
		}
		var line string
		if err := json.Unmarshal(res.Plan, &line); err != nil {
			return fmt.Errorf("%w: plan is not a JSON string: %w", ErrVerify, err)
		}
		if first, second, err = replayLine(a, line, len(a)); err != nil {
			return fmt.Errorf("%w: %w", ErrVerify, err)
		}
	}
	switch {
	case d.first != first || d.second != second:
		return fmt.Errorf("%w: details say %d/%d, replay gives %d/%d", ErrVerify, d.first, d.second, first, second)
	case *res.Value != first-second:
		return fmt.Errorf("%w: value %d, totals give %d", ErrVerify, *res.Value, first-second)
	case *res.Value != optimum:
		return fmt.Errorf("%w: value %d is not the optimum %d", ErrVerify, *res.Value, optimum)
	case d.winner != winner(optimum):
		return fmt.Errorf("%w: winner %q, want %q", ErrVerify, d.winner, winner(optimum))
	}
	return nil
}

// details are the fields of Result.Details.
type details struct {
	first, second int64
	winner        string
	omitted       bool
}

// readDetails accepts the Go values Solve puts in Details and the forms
// they take after a JSON round trip (float64 when exact, json.Number).
func readDetails(m map[string]any) (details, error) {
	var d details
	var err error
	for k, v := range m {
		switch k {
		case "first":
			d.first, err = asInt64(k, v)
		case "second":
			d.second, err = asInt64(k, v)
		case "winner":
			var ok bool
			if d.winner, ok = v.(string); !ok {
				err = fmt.Errorf("details.winner is %T, want a string", v)
			}
		case "line_omitted":
			if v != true {
				err = fmt.Errorf("details.line_omitted is %v, want true or absent", v)
			}
			d.omitted = true
		default:
			err = fmt.Errorf("details.%s: unknown key", k)
		}
		if err != nil {
			return d, err
		}
	}
	for _, k := range []string{"first", "second", "winner"} {
		if _, ok := m[k]; !ok {
			return d, fmt.Errorf("details.%s missing", k)
		}
	}
	return d, nil
}

func asInt64(key string, v any) (int64, error) {
	if n, ok := solver.DetailInt(v); ok {
		return n, nil
	}
	return 0, fmt.Errorf("details.%s is %v (%T), want an exact integer", key, v, v)
}
