package twoends

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/puzzled/puzzled/solver"
)

// Level is a parsed twoends level.
type Level struct {
	values []int64
}

// Kind implements solver.Level.
func (*Level) Kind() string { return Name }

// Values returns the sequence; callers must not modify it.
func (l *Level) Values() []int64 { return l.values }

// Canonical is {"kind":"twoends","values":[...]}, compact.
func (l *Level) Canonical() []byte {
	b := make([]byte, 0, 32+len(l.values)*4)
	b = append(b, `{"kind":"twoends","values":[`...)
	for i, v := range l.values {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, v, 10)
	}
	return append(b, "]}"...)
}

type levelJSON struct {
	Kind   string  `json:"kind"`
	Values []int64 `json:"values"`
}

// Parse implements solver.Kind.
func (kind) Parse(data []byte) (solver.Level, error) {
	var in levelJSON
	if err := solver.DecodeStrict(data, &in); err != nil {
		return nil, valuesError(data, err)
	}
	if in.Kind != Name {
		return nil, solver.Errorf("kind", "must be %q, got %q", Name, in.Kind)
	}
	if bytes.Contains(data, []byte("null")) {
		// encoding/json leaves a null element of []int64 at 0; the other
		// kinds reject null, so find it (rare: only then decode again).
		if err := nullValue(data); err != nil {
			return nil, err
		}
	}
	return NewLevel(in.Values)
}

// NewLevel validates values and returns a level that keeps the slice.
func NewLevel(values []int64) (*Level, error) {
	if len(values) == 0 {
		return nil, solver.Errorf("values", "missing or empty; need 1 to %d values", MaxValues)
	}
	if len(values) > MaxValues {
		return nil, solver.Errorf("values", "%d values, at most %d allowed", len(values), MaxValues)
	}
	for i, v := range values {
		if v > MaxAbsValue || v < -MaxAbsValue {
			return nil, solver.Errorf("values["+strconv.Itoa(i)+"]", "%d out of range; |value| ≤ %d", v, int64(MaxAbsValue))
		}
	}
	return &Level{values: values}, nil
}

// valuesError names the first bad element of "values" when decoding into
// []int64 failed on a type error (a fraction, a string, an int64 overflow);
// other errors are returned as they are.
func valuesError(data []byte, err error) error {
	var fe *solver.FieldError
	if !errors.As(err, &fe) || fe.Field != "values" {
		return err
	}
	var raw struct {
		Values []json.RawMessage `json:"values"`
	}
	if json.Unmarshal(data, &raw) != nil {
		return err
	}
	for i, r := range raw.Values {
		var v int64
		if json.Unmarshal(r, &v) != nil {
			return solver.Errorf("values["+strconv.Itoa(i)+"]", "must be an integer in [%d, %d], got %.40s", -int64(MaxAbsValue), int64(MaxAbsValue), r)
		}
	}
	return err
}

// nullValue names the first null element of "values".
func nullValue(data []byte) error {
	var raw struct {
		Values []json.RawMessage `json:"values"`
	}
	if json.Unmarshal(data, &raw) != nil {
		return nil
	}
	for i, r := range raw.Values {
		if string(r) == "null" {
			return solver.Errorf("values["+strconv.Itoa(i)+"]", "must be an integer in [%d, %d], got null", -int64(MaxAbsValue), int64(MaxAbsValue))
		}
	}
	return nil
}
