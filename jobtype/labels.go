package jobtype

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/puzzled/puzzled/solver"
)

// Caps on a job's or batch's labels: they are stored with it and come back
// on every GET, so they stay small.
const (
	MaxLabelKeys     = 64       // keys in one labels object
	MaxLabelKeyLen   = 128      // bytes in one key
	MaxLabelValueLen = 1024     // bytes of one value's JSON
	MaxLabelsLen     = 16 << 10 // bytes of the whole labels object's JSON
)

// CheckLabels validates a labels object: an object (or null) within the
// caps above, whose keys and strings PostgreSQL can store (see
// solver.CheckName: no control or bidi characters either). It returns the
// field at fault and why. A batch item's own labels ({"level": …, "labels":
// …}) are checked with it too.
func CheckLabels(raw json.RawMessage) (field, reason string) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return "", ""
	}
	if trimmed[0] != '{' {
		return "labels", "must be an object"
	}
	if len(trimmed) > MaxLabelsLen {
		return "labels", fmt.Sprintf("%d bytes, at most %d allowed", len(trimmed), MaxLabelsLen)
	}
	var labels map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &labels); err != nil {
		return "labels", "must be an object: " + err.Error()
	}
	if len(labels) > MaxLabelKeys {
		return "labels", fmt.Sprintf("%d keys, at most %d allowed", len(labels), MaxLabelKeys)
	}
	for key, value := range labels {
		if err := solver.CheckName("labels", key); err != nil {
			return "labels", fmt.Sprintf("key %q: %s", key, err.(*solver.FieldError).Reason)
		}
		field := "labels." + key
		if len(key) > MaxLabelKeyLen {
			return "labels", fmt.Sprintf("key %.40q…: %d bytes, at most %d allowed", key, len(key), MaxLabelKeyLen)
		}
		if len(value) > MaxLabelValueLen {
			return field, fmt.Sprintf("%d bytes of JSON, at most %d allowed", len(value), MaxLabelValueLen)
		}
		var v any
		if err := json.Unmarshal(value, &v); err != nil {
			return field, err.Error()
		}
		if err := checkStrings(field, v); err != nil {
			fe := err.(*solver.FieldError)
			return fe.Field, fe.Reason
		}
	}
	return "", ""
}

// checkStrings runs solver.CheckName on every string inside a decoded
// JSON value, keys included.
func checkStrings(field string, v any) error {
	switch v := v.(type) {
	case string:
		return solver.CheckName(field, v)
	case []any:
		for i, e := range v {
			if err := checkStrings(field+"["+strconv.Itoa(i)+"]", e); err != nil {
				return err
			}
		}
	case map[string]any:
		for k, e := range v {
			if err := solver.CheckName(field, k); err != nil {
				return err
			}
			if err := checkStrings(field+"."+k, e); err != nil {
				return err
			}
		}
	}
	return nil
}
