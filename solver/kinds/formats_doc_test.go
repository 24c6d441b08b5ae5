package kinds_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/puzzled/puzzled/solver/kinds"
)

// TestFormatsDocExamplesParse keeps docs/formats.md honest: every JSON
// level in its code blocks parses with the kind it names.
func TestFormatsDocExamplesParse(t *testing.T) {
	doc, err := os.ReadFile("../../docs/formats.md")
	if err != nil {
		t.Fatal(err)
	}
	reg := kinds.Registry()
	levels := 0
	blocks := strings.Split(string(doc), "```json\n")[1:]
	for _, block := range blocks {
		block, _, _ = strings.Cut(block, "```")
		dec := json.NewDecoder(strings.NewReader(block))
		for {
			var raw json.RawMessage
			if err := dec.Decode(&raw); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("block %q: %v", block, err)
			}
			if !bytes.Contains(raw, []byte(`"kind"`)) {
				continue
			}
			if _, err := reg.Parse(raw); err != nil {
				t.Errorf("example %s: %v", raw, err)
			}
			levels++
		}
	}
	if levels < 7 {
		t.Fatalf("found %d example levels in docs/formats.md; want every kind's", levels)
	}
}
