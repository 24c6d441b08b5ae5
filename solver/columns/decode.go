package columns

import (
	"bytes"
	"encoding/json"
	"errors"
)

// decodeStrict unmarshals one JSON value into v, rejecting unknown fields
// and trailing data.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("data after the value")
	}
	return nil
}
