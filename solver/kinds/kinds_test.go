package kinds

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzParse: any input either fails with an error or parses to a level
// whose canonical form parses again to the same canonical form (so its
// hash is stable).
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		`{"kind":"twoends","values":[3,1,2]}`,
		`{"kind":"zuma","board":"WWRRBBWW","hand":"WRBRW"}`,
		`{"kind":"zuma","board":"RRWWRRBBRR"}`,
		`{"kind":"sheep","slots":7,"tile_size":8,"tiles":[{"id":"a","type":1,"x":0,"y":0,"layer":1}]}`,
		`{"kind":"columns","width":3,"height":4,"rule":"groups","board":["...","...","...","RG."],"pieces":["RRB"],"goal":{"type":"survive"}}`,
		`{"kind":7}`, `{}`, `[]`, `null`,
	} {
		f.Add([]byte(seed))
	}
	reg := Registry()
	f.Fuzz(func(t *testing.T, data []byte) {
		lvl, err := reg.Parse(data)
		if err != nil {
			return
		}
		again, err := reg.Parse(lvl.Canonical())
		if err != nil {
			t.Fatalf("canonical form %s does not parse: %v", lvl.Canonical(), err)
		}
		if !bytes.Equal(again.Canonical(), lvl.Canonical()) {
			t.Fatalf("canonical form not stable:\n%s\n%s", lvl.Canonical(), again.Canonical())
		}
	})
}

func TestEveryKindIsRegistered(t *testing.T) {
	want := []string{"columns", "sheep", "twoends", "zuma"}
	got := Registry().Names()
	if len(got) != len(want) {
		t.Fatalf("kinds %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("kinds %v, want %v", got, want)
		}
	}
}

// TestKindlessCommunitySheep: the registry recognises a community sheep
// file without "kind"; other kindless objects still name the missing kind.
func TestKindlessCommunitySheep(t *testing.T) {
	reg := Registry()
	community := []byte(`{"map_seed":[1,2],"levelData":{"1":[{"id":"a","type":1,"rolNum":0,"rowNum":0,"layerNum":1}]}}`)
	lvl, err := reg.Parse(community)
	if err != nil || lvl.Kind() != "sheep" {
		t.Fatalf("community file: %v", err)
	}
	if !reg.IsLevel(fieldsOf(community)) || !reg.IsLevel(fieldsOf([]byte(`{"kind":"zuma"}`))) {
		t.Fatal("IsLevel misses a level")
	}
	for _, data := range []string{`{"values":[1,2]}`, `{"level":{"kind":"twoends","values":[1]}}`, `[]`, `null`} {
		if reg.IsLevel(fieldsOf([]byte(data))) {
			t.Fatalf("IsLevel(%s) = true", data)
		}
		if _, err := reg.Parse([]byte(data)); err == nil {
			t.Fatalf("Parse(%s) accepted", data)
		}
	}
}

// fieldsOf splits a JSON object into its top-level fields (nil for
// anything else), as IsLevel's callers do.
func fieldsOf(data []byte) map[string]json.RawMessage {
	var fields map[string]json.RawMessage
	_ = json.Unmarshal(data, &fields)
	return fields
}
