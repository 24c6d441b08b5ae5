package api_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/puzzled/puzzled/api"
	"github.com/puzzled/puzzled/solver/kinds"
)

// TestOpenAPIKindsAreTheRegistrys: api/openapi.json lists the kinds of
// solver/kinds in one place, components.schemas.Kind, which every kind
// parameter and property refers to; the server fills that list from its
// registry (a toy kind's server lists the toy: cmd/puzzlectl's
// TestToyKindAtEveryEntryPoint). This fails when the written list drifts
// from the registry or a kind enum is written anywhere else.
func TestOpenAPIKindsAreTheRegistrys(t *testing.T) {
	t.Parallel()
	var doc map[string]any
	if err := json.Unmarshal(api.OpenAPIDocument(), &doc); err != nil {
		t.Fatal(err)
	}
	names := kinds.Registry().Names()
	var kindEnums []string
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				walk(path+"/"+k, e)
			}
		case []any:
			var got []string
			for _, e := range v {
				if s, ok := e.(string); ok {
					got = append(got, s)
				}
				walk(path+"[]", e)
			}
			if slices.ContainsFunc(got, func(s string) bool { return slices.Contains(names, s) }) {
				kindEnums = append(kindEnums, path)
				if !slices.Equal(got, names) {
					t.Errorf("%s lists %v; the registry has %v", path, got, names)
				}
			}
		}
	}
	walk("", doc)
	if !slices.Equal(kindEnums, []string{"/components/schemas/Kind/enum"}) {
		t.Fatalf("kind lists at %v, want one, /components/schemas/Kind/enum", kindEnums)
	}
}
