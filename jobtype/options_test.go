package jobtype_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/difficulty"
	"github.com/puzzled/puzzled/solver/kinds"
)

func TestNormalizeAppliesEachDefaultOnce(t *testing.T) {
	t.Parallel()
	playouts := func(n int) *jobtype.Difficulty { return &jobtype.Difficulty{Playouts: n} }
	for _, c := range []struct {
		name     string
		in       jobtype.Options
		form     jobtype.Form
		priority jobtype.Priority
		playouts *int // want; nil: the worker's default
	}{
		{"a job alone is interactive, with the worker's figures", jobtype.Options{}, jobtype.Alone, jobtype.Interactive, nil},
		{"a batch is bulk, without figures", jobtype.Options{}, jobtype.InBatch, jobtype.Bulk, new(int)},
		{"a bulk job alone has no figures", jobtype.Options{Priority: jobtype.Bulk}, jobtype.Alone, jobtype.Bulk, new(int)},
		{"an interactive batch has the worker's figures", jobtype.Options{Priority: jobtype.Interactive}, jobtype.InBatch,
			jobtype.Interactive, nil},
		{"playouts asked for are kept", jobtype.Options{Difficulty: playouts(7)}, jobtype.InBatch, jobtype.Bulk, ptr(7)},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			o := c.in
			if err := o.Normalize(c.form); err != nil {
				t.Fatal(err)
			}
			got := o.Playouts()
			if o.Priority != c.priority || (got == nil) != (c.playouts == nil) || (got != nil && *got != *c.playouts) {
				t.Fatalf("priority %q, playouts %v; want %q, %v", o.Priority, got, c.priority, c.playouts)
			}
			again := o
			if err := again.Normalize(c.form); err != nil || again.Priority != o.Priority ||
				(again.Playouts() == nil) != (got == nil) {
				t.Fatalf("a second Normalize changed %+v into %+v (%v)", o, again, err)
			}
		})
	}
}

func TestValidateNamesTheField(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in    jobtype.Options
		field string
	}{
		{jobtype.Options{Priority: "urgent"}, "priority"},
		{jobtype.Options{Budget: solver.Budget{MaxMS: -1}}, "budget.max_ms"},
		{jobtype.Options{Budget: solver.Budget{MaxMS: jobtype.MaxBudgetMS + 1}}, "budget.max_ms"},
		{jobtype.Options{Budget: solver.Budget{MaxNodes: -1}}, "budget.max_nodes"},
		{jobtype.Options{Difficulty: &jobtype.Difficulty{Playouts: difficulty.MaxPlayouts + 1}}, "difficulty.playouts"},
		{jobtype.Options{Difficulty: &jobtype.Difficulty{Playouts: -1}}, "difficulty.playouts"},
		{jobtype.Options{Labels: json.RawMessage(`[1]`)}, "labels"},
		{jobtype.Options{Labels: json.RawMessage(`{"a":"\u0000"}`)}, "labels.a"},
	} {
		err := c.in.Validate()
		var fe *solver.FieldError
		if !errors.As(err, &fe) || fe.Field != c.field {
			t.Errorf("%+v: %v, want an error on %s", c.in, err, c.field)
		}
		o := c.in
		if err := o.Normalize(jobtype.Alone); err == nil {
			t.Errorf("%+v: Normalize accepts what Validate refuses", c.in)
		}
	}
	if err := (jobtype.Options{Priority: jobtype.Bulk, Budget: solver.Budget{MaxMS: jobtype.MaxBudgetMS},
		Labels: json.RawMessage(`{"a":"b"}`)}).Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestSpecParsesItsLevelWithTheRegistry(t *testing.T) {
	t.Parallel()
	reg := kinds.Registry()
	community := `{"levelData":{"1":[{"id":"a","type":1,"rolNum":0,"rowNum":0,"layerNum":1}]}}`
	for _, c := range []struct {
		spec jobtype.Spec
		kind string // "" for an error
	}{
		{jobtype.Spec{Level: json.RawMessage(`{"kind":"twoends","values":[1,2]}`)}, "twoends"},
		{jobtype.Spec{Level: json.RawMessage(`{"kind":"twoends","values":[1,2]}`), Kind: "twoends"}, "twoends"},
		{jobtype.Spec{Level: json.RawMessage(community)}, "sheep"},
		{jobtype.Spec{Level: json.RawMessage(`{"values":[1,2]}`)}, ""},
		{jobtype.Spec{Level: json.RawMessage(`{"kind":"twoends","values":[1,2]}`), Options: jobtype.Options{Priority: "x"}}, ""},
	} {
		spec := c.spec
		lvl, err := spec.Normalize(reg, jobtype.Alone)
		switch {
		case c.kind == "" && err == nil:
			t.Errorf("%s: accepted", c.spec.Level)
		case c.kind != "" && (err != nil || lvl.Kind() != c.kind):
			t.Errorf("%s: %v, want a %s level", c.spec.Level, err, c.kind)
		}
	}
}

func ptr(n int) *int { return &n }
