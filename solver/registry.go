package solver

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Registry maps kind names to kinds. Build one with [NewRegistry]; it is
// read-only afterwards and safe for concurrent use.
type Registry struct {
	kinds map[string]Kind
}

// NewRegistry returns a registry of the given kinds. It panics on a
// duplicate name: that is a programming error found at start-up.
func NewRegistry(kinds ...Kind) *Registry {
	r := &Registry{kinds: make(map[string]Kind, len(kinds))}
	for _, k := range kinds {
		if _, dup := r.kinds[k.Name()]; dup {
			panic("solver: kind registered twice: " + k.Name())
		}
		r.kinds[k.Name()] = k
	}
	return r
}

// Kind returns the kind named name.
func (r *Registry) Kind(name string) (Kind, bool) {
	k, ok := r.kinds[name]
	return k, ok
}

// Names lists the registered kinds in sorted order.
func (r *Registry) Names() []string {
	names := make([]string, 0, len(r.kinds))
	for n := range r.kinds {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Detector is implemented by kinds whose level files may come without a
// "kind" field (sheep's community files). DetectLevel reports whether a JSON
// object without "kind", given as its top-level fields, is such a file; it
// must not claim files of other kinds.
type Detector interface {
	DetectLevel(fields map[string]json.RawMessage) bool
}

// Parse reads the "kind" field of a level, or, when it is missing, asks the
// kinds that are Detectors, and hands data to that kind.
func (r *Registry) Parse(data []byte) (Level, error) {
	var head struct {
		Kind *string `json:"kind"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, DecodeError(err)
	}
	if head.Kind == nil {
		if k := r.detect(data); k != nil {
			return k.Parse(data)
		}
		return nil, &FieldError{Field: "kind", Reason: "missing: a level needs \"kind\", one of " + strings.Join(r.Names(), ", ")}
	}
	return r.ParseAs(*head.Kind, data)
}

// ParseAs hands data to the kind named kind, for a caller that has read
// the level's "kind" field already: it saves Parse's decoding of it.
func (r *Registry) ParseAs(kind string, data []byte) (Level, error) {
	k, ok := r.kinds[kind]
	if !ok {
		return nil, &FieldError{Field: "kind", Reason: fmt.Sprintf("unknown kind %q; one of %v", kind, r.Names())}
	}
	return k.Parse(data)
}

// IsLevel reports whether a JSON object, given as its top-level fields,
// is a level rather than a wrapper such as {"level": …}: it names its kind,
// or a kind recognises it without one (a [Detector]). It is the one level
// detector: the API's job and batch body forms ask it, and Parse (so
// puzzlectl too) uses the same Detectors.
func (r *Registry) IsLevel(fields map[string]json.RawMessage) bool {
	if fields == nil {
		return false
	}
	if _, ok := fields["kind"]; ok {
		return true
	}
	return r.detectFields(fields) != nil
}

// detect returns the one kind that recognises data, or nil.
func (r *Registry) detect(data []byte) Kind {
	var fields map[string]json.RawMessage
	if json.Unmarshal(data, &fields) != nil || fields == nil {
		return nil
	}
	return r.detectFields(fields)
}

// detectFields returns the kind that recognises a level without "kind";
// nil when none or more than one does (then the file must say).
func (r *Registry) detectFields(fields map[string]json.RawMessage) Kind {
	var found Kind
	for _, name := range r.Names() {
		d, ok := r.kinds[name].(Detector)
		if !ok || !d.DetectLevel(fields) {
			continue
		}
		if found != nil {
			return nil
		}
		found = r.kinds[name]
	}
	return found
}

// KindOf returns the Kind that a parsed level belongs to.
func (r *Registry) KindOf(lvl Level) Kind { return r.kinds[lvl.Kind()] }

// DefaultBudget is the budget of a job of the named kind that names none
// (see [BudgetFor]).
func (r *Registry) DefaultBudget(name string) Budget { return BudgetFor(r.kinds[name], Budget{}) }

// BudgetFor is the budget a job of kind k searches with when it asked for
// b: b, or for the zero budget the kind's own default ([BudgetDefaulter])
// or DefaultMaxMS milliseconds. It is the one place that default is
// applied (jobs store the zero budget as they were sent).
func BudgetFor(k Kind, b Budget) Budget {
	if b != (Budget{}) {
		return b
	}
	if d, ok := k.(BudgetDefaulter); ok {
		return d.DefaultBudget()
	}
	return Budget{MaxMS: DefaultMaxMS}
}
