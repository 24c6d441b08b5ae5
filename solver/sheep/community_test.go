package sheep

import (
	"reflect"
	"strings"
	"testing"

	"github.com/puzzled/puzzled/solver"
)

// captureShaped is shaped like the files capture tools write from the
// game: seeds at the top level, an operations array, tile fields of the
// game's runtime, layers as string keys (out of numeric order).
const captureShaped = `{
 "widthNum": 8, "heightNum": 10, "levelKey": 90029,
 "map_seed": [4026531840, 1, 2, 3], "map_seed_2": "1662638406",
 "operations": [{"op": "click", "id": "10-4-0"}],
 "blockTypeData": {"1": 2, "2": 1},
 "levelData": {
  "10": [{"id": "10-4-0", "type": 1, "rolNum": 4, "rowNum": 0, "layerNum": 10, "moldType": 1, "blockNode": null, "angle": 0, "visible": true}],
  "2": [{"id": "2-0-0", "type": 1, "rolNum": 0, "rowNum": 0, "layerNum": 2, "moldType": 1, "angle": 90},
        {"id": "2-8-0", "type": 1, "rolNum": 8, "rowNum": 0, "layerNum": 2, "moldType": 2}],
  "1": [{"id": "1-0-8", "type": 2, "rolNum": 0, "rowNum": 8, "layerNum": 1, "moldType": 1},
        {"id": "1-8-8", "type": 2, "rolNum": 8, "rowNum": 8, "layerNum": 1, "moldType": 1},
        {"id": "1-16-8", "type": 2, "rolNum": 16, "rowNum": 8, "layerNum": 1, "moldType": 1}]
 }
}`

const captureNative = `{"kind":"sheep","tiles":[
 {"id":"10-4-0","type":1,"x":4,"y":0,"layer":10},{"id":"2-0-0","type":1,"x":0,"y":0,"layer":2},
 {"id":"2-8-0","type":1,"x":8,"y":0,"layer":2},{"id":"1-0-8","type":2,"x":0,"y":8,"layer":1},
 {"id":"1-8-8","type":2,"x":8,"y":8,"layer":1},{"id":"1-16-8","type":2,"x":16,"y":8,"layer":1}]}`

// TestCaptureShapedFile: fields outside the format are ignored and named,
// the level is the same as its native form, and the result names them.
func TestCaptureShapedFile(t *testing.T) {
	t.Parallel()
	l := mustParse(t, []byte(captureShaped))
	want := []string{"levelData[*][*].angle", "levelData[*][*].visible", "map_seed", "map_seed_2", "operations"}
	if got := l.IgnoredFields(); !reflect.DeepEqual(got, want) {
		t.Fatalf("ignored = %v, want %v", got, want)
	}
	n := mustParse(t, []byte(captureNative))
	if string(n.Canonical()) != string(l.Canonical()) {
		t.Fatalf("canonical forms differ:\n%s\n%s", n.Canonical(), l.Canonical())
	}
	if n.IgnoredFields() != nil {
		t.Fatalf("native level ignores %v", n.IgnoredFields())
	}
	res := solveVerified(t, l, solver.Options{})
	if res.Verdict != solver.Solved || !reflect.DeepEqual(res.Details["ignored_fields"], want) {
		t.Fatalf("verdict %s, details %v", res.Verdict, res.Details)
	}
	// The canonical form (what the service stores) no longer carries them.
	if res := solveVerified(t, n, solver.Options{}); res.Details["ignored_fields"] != nil {
		t.Fatalf("native result names ignored fields: %v", res.Details)
	}
}

// TestIgnoredFieldsBounded: a file with thousands of extra fields keeps a
// bounded list of names.
func TestIgnoredFieldsBounded(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(`{"levelData":{"1":[{"id":"a","type":1,"rolNum":0,"rowNum":0,"layerNum":1}]}`)
	for i := range 1000 {
		b.WriteString(`,"x` + itoa(i) + `":1`)
	}
	b.WriteString(`}`)
	l := mustParse(t, []byte(b.String()))
	if got := len(l.IgnoredFields()); got != maxIgnoredFields {
		t.Fatalf("%d ignored names kept, want %d", got, maxIgnoredFields)
	}
}
