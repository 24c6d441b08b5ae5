package solver

import (
	"encoding/json"
	"fmt"
	"sort"
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

// Parse reads the "kind" field of a level and hands data to that kind.
func (r *Registry) Parse(data []byte) (Level, error) {
	var head struct {
		Kind *string `json:"kind"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, DecodeError(err)
	}
	if head.Kind == nil {
		return nil, &FieldError{Field: "kind", Reason: "missing; one of " + fmt.Sprint(r.Names())}
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

// KindOf returns the Kind that a parsed level belongs to.
func (r *Registry) KindOf(lvl Level) Kind { return r.kinds[lvl.Kind()] }
