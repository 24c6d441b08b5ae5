package sheep

import (
	"encoding/json"
	"fmt"

	"github.com/puzzled/puzzled/solver"
)

type nativeTile struct {
	ID     *string   `json:"id"`
	Type   *int      `json:"type"`
	X      *int      `json:"x"`
	Y      *int      `json:"y"`
	Layer  *int      `json:"layer"`
	Covers *[]string `json:"covers"`
}

type nativeLevel struct {
	Kind     *string      `json:"kind"`
	Slots    *int         `json:"slots"`
	TileSize *int         `json:"tile_size"`
	Tiles    []nativeTile `json:"tiles"`
}

// Parse reads a level in the native or the community format (a JSON object
// with "levelData" is read as a community file). Errors are
// *solver.FieldError naming the field at fault.
func Parse(data []byte) (*Level, error) {
	var probe struct {
		LevelData json.RawMessage `json:"levelData"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, solver.DecodeError(err)
	}
	if probe.LevelData != nil {
		return parseCommunity(data)
	}
	return parseNative(data)
}

func parseNative(data []byte) (*Level, error) {
	var in nativeLevel
	if err := solver.DecodeStrict(data, &in); err != nil {
		return nil, err
	}
	if in.Kind == nil {
		return nil, solver.Errorf("kind", "missing; must be %q", Name)
	}
	if *in.Kind != Name {
		return nil, solver.Errorf("kind", "must be %q, got %q", Name, *in.Kind)
	}
	slots, err := intIn("slots", in.Slots, DefaultSlots, 1, MaxSlots)
	if err != nil {
		return nil, err
	}
	size, err := intIn("tile_size", in.TileSize, DefaultTileSize, 1, MaxTileSize)
	if err != nil {
		return nil, err
	}
	if err := checkCount(len(in.Tiles), "tiles"); err != nil {
		return nil, err
	}
	geometry := true
	for _, t := range in.Tiles {
		if t.Covers != nil {
			geometry = false
		}
	}
	raw := make([]rawTile, len(in.Tiles))
	for i, t := range in.Tiles {
		f := fmt.Sprintf("tiles[%d]", i)
		r, err := nativeRaw(f, t, geometry)
		if err != nil {
			return nil, err
		}
		raw[i] = r
	}
	return build(slots, size, geometry, raw)
}

func nativeRaw(f string, t nativeTile, geometry bool) (rawTile, error) {
	r := rawTile{field: f}
	if t.ID == nil {
		return r, solver.Errorf(f+".id", "missing")
	}
	r.ID = *t.ID
	if t.Type == nil {
		return r, solver.Errorf(f+".type", "missing")
	}
	if *t.Type < 0 || *t.Type > MaxTypeValue {
		return r, solver.Errorf(f+".type", "must be in [0, %d], got %d", MaxTypeValue, *t.Type)
	}
	r.Type = *t.Type
	if !geometry {
		if t.Covers != nil {
			r.Covers = *t.Covers
		}
		return r, nil
	}
	var err error
	if r.X, err = intIn(f+".x", t.X, -1, 0, MaxCoord); err != nil {
		return r, err
	}
	if r.Y, err = intIn(f+".y", t.Y, -1, 0, MaxCoord); err != nil {
		return r, err
	}
	r.Layer, err = intIn(f+".layer", t.Layer, -1, 0, MaxLayer)
	return r, err
}

// intIn checks an optional integer field against [lo, hi]; def < 0 means
// the field is required.
func intIn(field string, v *int, def, lo, hi int) (int, error) {
	if v == nil {
		if def < 0 {
			return 0, solver.Errorf(field, "missing")
		}
		return def, nil
	}
	if *v < lo || *v > hi {
		return 0, solver.Errorf(field, "must be in [%d, %d], got %d", lo, hi, *v)
	}
	return *v, nil
}

func checkCount(n int, field string) error {
	if n == 0 {
		return solver.Errorf(field, "no tiles")
	}
	if n > MaxTiles {
		return solver.Errorf(field, "%d tiles, at most %d allowed", n, MaxTiles)
	}
	return nil
}
