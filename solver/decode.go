package solver

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
)

// DecodeStrict unmarshals one JSON object into v, rejecting unknown fields
// and trailing data, and turns encoding/json's errors into *FieldError so
// that callers see which field is wrong.
func DecodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return DecodeError(err)
	}
	if dec.More() {
		return &FieldError{Reason: "invalid JSON: data after the level object"}
	}
	return nil
}

// DecodeError converts an encoding/json error into a *FieldError.
func DecodeError(err error) error {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		field := typeErr.Field
		if field == "" {
			field = "(level)"
		}
		return &FieldError{Field: field, Reason: "must be " + jsonType(typeErr.Type.Kind().String()) + ", got " + typeErr.Value}
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if f, ok := strings.CutPrefix(msg, "unknown field "); ok {
		return &FieldError{Field: strings.Trim(f, `"`), Reason: "unknown field"}
	}
	return &FieldError{Reason: "invalid JSON: " + msg}
}

func jsonType(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "slice", "array":
		return "an array"
	case "struct", "map":
		return "an object"
	case "bool":
		return "a boolean"
	default:
		return "a number"
	}
}
