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
		return &FieldError{Field: field, Reason: typeReason(typeErr)}
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if f, ok := strings.CutPrefix(msg, "unknown field "); ok {
		return &FieldError{Field: strings.Trim(f, `"`), Reason: "unknown field"}
	}
	return &FieldError{Reason: "invalid JSON: " + msg}
}

// typeReason says what a field must be and what it got: "must be a
// number: an integer in range, got 1.5" rather than "must be a number, got
// number".
func typeReason(e *json.UnmarshalTypeError) string {
	got := e.Value
	if lit, ok := strings.CutPrefix(got, "number "); ok {
		got = lit
	} else {
		got = jsonValueName(got)
	}
	want := jsonType(e.Type.Kind().String())
	if want == "a number" && e.Value != "number" && strings.HasPrefix(e.Value, "number") && isIntKind(e.Type.Kind().String()) {
		want = "a number: an integer in range"
	}
	return "must be " + want + ", got " + got
}

func isIntKind(goKind string) bool {
	return strings.HasPrefix(goKind, "int") || strings.HasPrefix(goKind, "uint")
}

// jsonValueName puts an article before encoding/json's name of a value.
func jsonValueName(v string) string {
	switch v {
	case "string", "number", "bool":
		return "a " + strings.Replace(v, "bool", "boolean", 1)
	case "object", "array":
		return "an " + v
	}
	return v
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
