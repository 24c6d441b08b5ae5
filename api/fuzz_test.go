package api

import (
	"net/http/httptest"
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
		r := httptest.NewRequest("POST", "/v1/batches?max_ms=10", strings.NewReader(body))
		if ndjson {
			r.Header.Set("Content-Type", "application/x-ndjson")
		}
		req, err := decodeBatch([]byte(body), r)
		if err != nil {
			return
		}
		for _, raw := range req.Levels {
			lvl, err := reg.Parse(raw)
			if err == nil && len(lvl.Canonical()) == 0 {
				t.Fatalf("level %s parsed to an empty canonical form", raw)
			}
		}
	})
}
