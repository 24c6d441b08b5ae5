package api

import (
	"strings"
	"testing"

	"github.com/puzzled/puzzled/solver/kinds"
)

// FuzzDecodeBatch: no body makes the batch decoder or the level parsers
// panic, and every level the decoder yields is either parsed or rejected
// with an error.
func FuzzDecodeBatch(f *testing.F) {
	for _, seed := range []string{
		`[{"kind":"twoends","values":[3,1,2]}]`,
		`{"levels":[{"kind":"zuma","board":"RRGG","hand":"RG"}],"priority":"bulk","budget":{"max_ms":5}}`,
		"{\"kind\":\"twoends\",\"values\":[1]}\n{\"kind\":\"columns\"}\n",
		`{"kind":"sheep","tiles":[{"id":"a","type":1,"x":0,"y":0,"layer":1}]}`,
		`[`, `{`, `[1,2,"x"]`, "\n\n", `{"levels":7}`,
	} {
		f.Add(seed, false)
		f.Add(seed, true)
	}
	reg := kinds.Registry()
	f.Fuzz(func(t *testing.T, body string, ndjson bool) {
		dec, err := newBatchDecoder(reg, strings.NewReader(body), ndjson, 1<<20)
		if err != nil {
			return
		}
		for n := 0; ; n++ {
			raw, err := dec.next()
			if err != nil {
				return
			}
			if n > len(body) {
				t.Fatalf("more levels than bytes in %q", body)
			}
			lvl, err := reg.Parse(raw)
			if err == nil && len(lvl.Canonical()) == 0 {
				t.Fatalf("level %s parsed to an empty canonical form", raw)
			}
		}
	})
}
