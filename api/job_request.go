package api

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/solver"
)

// decodeJobRequest reads a POST /v1/jobs body into a job's spec in one
// pass over its bytes. The body is {"level": …, "priority": …, "budget": …,
// "difficulty": …, "labels": …}, or a bare level with default options: an
// object the registry takes for a level (solver.Registry.IsLevel), or one
// that is not the wrapper either, for which the registry then says that
// "kind" is missing. The top-level object is split into its fields, and
// only the small option fields are decoded further. The level's bytes are
// handed on untouched, so that the registry parses them once (with the
// kind, when the bare form told it, known already). Errors are
// *solver.FieldError.
func decodeJobRequest(reg *solver.Registry, body []byte) (jobtype.Spec, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		return jobtype.Spec{}, solver.DecodeError(err)
	}
	if reg.IsLevel(fields) || !isWrapper(fields) {
		spec := jobtype.Spec{Level: body}
		if kind, ok := fields["kind"]; ok {
			// A kind that is not a string is left to the registry, which
			// names the mistake.
			_ = json.Unmarshal(kind, &spec.Kind)
		}
		return spec, nil
	}
	var spec jobtype.Spec
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		raw := fields[name]
		var err error
		switch name {
		case "level":
			spec.Level = raw
		case "priority":
			err = decodeOption(name, raw, &spec.Priority)
		case "budget":
			err = decodeOption(name, raw, &spec.Budget)
		case "difficulty":
			spec.Difficulty, err = decodeDifficulty(raw)
		case "labels":
			spec.Labels = raw
		case "callbacks":
			err = decodeOption(name, raw, &spec.Callbacks)
		case "project":
			err = decodeOption(name, raw, &spec.Project)
		default:
			err = &solver.FieldError{Field: name, Reason: "unknown field"}
		}
		if err != nil {
			return jobtype.Spec{}, err
		}
	}
	return spec, nil
}

// isWrapper reports whether an object that is not a level is the
// {"level": …} wrapper: it has a "level" field, or only option fields.
func isWrapper(fields map[string]json.RawMessage) bool {
	if _, ok := fields["level"]; ok {
		return true
	}
	for name := range fields {
		switch name {
		case "priority", "budget", "difficulty", "labels", "callbacks", "project":
		default:
			return false
		}
	}
	return true
}

// decodeOption decodes one option field strictly, naming it in errors:
// "budget.max_ms", not "max_ms".
func decodeOption(name string, raw json.RawMessage, v any) error {
	err := solver.DecodeStrict(raw, v)
	if fe, ok := err.(*solver.FieldError); ok {
		switch {
		case fe.Field == "" || fe.Field == "(level)":
			fe.Field = name
		case !strings.HasPrefix(fe.Field, name+"."):
			fe.Field = name + "." + fe.Field
		}
	}
	return err
}
