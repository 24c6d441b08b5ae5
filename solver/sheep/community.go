package sheep

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"

	"github.com/puzzled/puzzled/solver"
)

// Community level files come from the game and from capture tools, each
// adding fields of its own (map_seed, map_seed_2, operations, ...). They
// load as they are: the fields we use are validated strictly, fields of
// the documented format we do not use are accepted silently, and any
// other field, at the top level or inside a tile, is ignored and named in
// Level.IgnoredFields (and so in the result's details), so nobody wonders
// what was dropped.

// communityTop lists the documented top-level fields; only levelData is
// used. "kind" is optional so the files load as they are.
var communityTop = map[string]bool{
	"kind": true, "widthNum": true, "heightNum": true, "levelKey": true,
	"blockTypeData": true, "levelData": true,
}

// communityTileFields lists the documented tile fields. moldType 2 marks a
// blind-pile tile, played like any other; blockNode is a runtime field of
// the game. Neither changes the level.
var communityTileFields = map[string]bool{
	"id": true, "type": true, "rolNum": true, "rowNum": true, "layerNum": true,
	"moldType": true, "blockNode": true,
}

// maxIgnoredFields bounds the names kept: a hostile file cannot make the
// details arbitrarily large.
const maxIgnoredFields = 32

type ignoredSet map[string]bool

func (s ignoredSet) add(name string) {
	if len(s) < maxIgnoredFields {
		s[name] = true
	}
}

func (s ignoredSet) sorted() []string {
	out := make([]string, 0, len(s))
	for n := range s {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func parseCommunity(data []byte) (*Level, error) {
	var top map[string]json.RawMessage
	if err := decodeOne(data, &top); err != nil {
		return nil, err
	}
	ignored := ignoredSet{}
	for k := range top {
		if !communityTop[k] {
			ignored.add(k)
		}
	}
	if raw, ok := top["kind"]; ok {
		var kind string
		if err := decodeField("kind", raw, &kind); err != nil {
			return nil, err
		}
		if kind != Name {
			return nil, solver.Errorf("kind", "must be %q, got %q", Name, kind)
		}
	}
	var layers map[string][]map[string]json.RawMessage
	if err := decodeField("levelData", top["levelData"], &layers); err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(layers))
	n := 0
	for k, ts := range layers {
		keys = append(keys, k)
		n += len(ts)
	}
	if err := checkCount(n, "levelData"); err != nil {
		return nil, err
	}
	sort.Strings(keys)
	raw := make([]rawTile, 0, n)
	for _, k := range keys {
		for i, t := range layers[k] {
			f := fmt.Sprintf("levelData[%s][%d]", strconv.Quote(k), i)
			if t == nil {
				return nil, solver.Errorf(f, "must be an object, got null")
			}
			for name := range t {
				if !communityTileFields[name] {
					ignored.add("levelData[*][*]." + name)
				}
			}
			r, err := communityRaw(f, t)
			if err != nil {
				return nil, err
			}
			raw = append(raw, r)
		}
	}
	l, err := build(DefaultSlots, DefaultTileSize, true, raw)
	if err != nil {
		return nil, err
	}
	l.ignored = ignored.sorted()
	return l, nil
}

func communityRaw(f string, t map[string]json.RawMessage) (rawTile, error) {
	r := rawTile{field: f}
	var id *string
	if err := decodeField(f+".id", t["id"], &id); err != nil {
		return r, err
	}
	if id == nil {
		return r, solver.Errorf(f+".id", "missing")
	}
	r.ID = *id
	typ, err := intField(f+".type", t["type"])
	if err != nil {
		return r, err
	}
	switch {
	case typ == nil:
		return r, solver.Errorf(f+".type", "missing")
	case *typ == 0:
		return r, solver.Errorf(f+".type", "0 means no type assigned yet; assign every tile a type (1 or more) before solving")
	case *typ < 0 || *typ > MaxTypeValue:
		return r, solver.Errorf(f+".type", "must be in [1, %d], got %d", MaxTypeValue, *typ)
	}
	r.Type = *typ
	mold, err := intField(f+".moldType", t["moldType"])
	if err != nil {
		return r, err
	}
	if mold != nil && *mold < 0 {
		return r, solver.Errorf(f+".moldType", "must not be negative, got %d", *mold)
	}
	for _, c := range []struct {
		name string
		dst  *int
		max  int
	}{{"rolNum", &r.X, MaxCoord}, {"rowNum", &r.Y, MaxCoord}, {"layerNum", &r.Layer, MaxLayer}} {
		v, err := intField(f+"."+c.name, t[c.name])
		if err != nil {
			return r, err
		}
		if *c.dst, err = intIn(f+"."+c.name, v, -1, 0, c.max); err != nil {
			return r, err
		}
	}
	return r, nil
}

// intField decodes an optional integer; null counts as absent.
func intField(field string, raw json.RawMessage) (*int, error) {
	var v *int
	err := decodeField(field, raw, &v)
	return v, err
}

// decodeField decodes one field's raw JSON (nil: absent, v untouched) and
// names field in the error.
func decodeField(field string, raw json.RawMessage, v any) error {
	if raw == nil {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		fe := solver.DecodeError(err)
		if e, ok := fe.(*solver.FieldError); ok {
			inner := e.Field
			e.Field = field
			if inner != "" && inner != "(level)" {
				e.Field = field + "." + inner
			}
		}
		return fe
	}
	return nil
}

// decodeOne decodes one JSON object, rejecting trailing data.
func decodeOne(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return solver.DecodeError(err)
	}
	if dec.More() {
		return &solver.FieldError{Reason: "invalid JSON: data after the level object"}
	}
	return nil
}
