package api

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/puzzled/puzzled/api/wire"
	"github.com/puzzled/puzzled/solver"
)

// jobRequest is the body of POST /v1/jobs: {"level": …, "priority": …,
// "budget": …, "difficulty": …, "labels": …}, or a bare level (an object with a "kind"
// field, or one a kind recognises without it, such as a community sheep
// file) with default options.
type jobRequest struct {
	Level      json.RawMessage
	Kind       string // the bare form's kind, already read; "" for the wrapper
	Priority   string
	Budget     solver.Budget
	Difficulty *wire.DifficultyOption
	Labels     json.RawMessage
	Callbacks  []wire.Callback // webhooks.go
}

// decodeJobRequest reads a POST /v1/jobs body in one pass over its bytes:
// the top-level object is split into its fields, and only the small option
// fields are decoded further. The level's bytes are handed on untouched, so
// that the registry parses them once (with the kind, when the bare form
// told it, known already). Errors are *solver.FieldError.
func decodeJobRequest(body []byte) (jobRequest, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		return jobRequest{}, solver.DecodeError(err)
	}
	if kind, ok := fields["kind"]; ok {
		req := jobRequest{Level: body}
		// A kind that is not a string is left to the registry, which names
		// the mistake.
		_ = json.Unmarshal(kind, &req.Kind)
		return req, nil
	}
	if isBareLevel(fields) {
		// No "kind", but not a wrapper either: the registry recognises a
		// level that names no kind (a community sheep file) or says that
		// "kind" is missing.
		return jobRequest{Level: body}, nil
	}
	var req jobRequest
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		raw := fields[name]
		var err error
		switch name {
		case "level":
			req.Level = raw
		case "priority":
			err = decodeOption(name, raw, &req.Priority)
		case "budget":
			err = decodeOption(name, raw, &req.Budget)
		case "difficulty":
			req.Difficulty, err = decodeDifficulty(raw)
		case "labels":
			req.Labels = raw
		case "callbacks":
			err = decodeOption(name, raw, &req.Callbacks)
		default:
			err = &solver.FieldError{Field: name, Reason: "unknown field"}
		}
		if err != nil {
			return jobRequest{}, err
		}
	}
	return req, nil
}

// isBareLevel reports whether an object without "kind" is meant as a level
// rather than the {"level": …} wrapper: it has no "level" field and a field
// that no wrapper has.
func isBareLevel(fields map[string]json.RawMessage) bool {
	if _, ok := fields["level"]; ok {
		return false
	}
	for name := range fields {
		switch name {
		case "priority", "budget", "difficulty", "labels", "callbacks":
		default:
			return true
		}
	}
	return false
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
