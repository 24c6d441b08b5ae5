package sheep

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"

	"github.com/puzzled/puzzled/solver"
)

// communityTile is one tile of a community level file. moldType 2 marks a
// blind-pile tile; it is played like any other tile. blockNode is a
// runtime field of the game and is ignored.
type communityTile struct {
	ID        *string         `json:"id"`
	Type      *int            `json:"type"`
	RolNum    *int            `json:"rolNum"`
	RowNum    *int            `json:"rowNum"`
	LayerNum  *int            `json:"layerNum"`
	MoldType  *int            `json:"moldType"`
	BlockNode json.RawMessage `json:"blockNode"`
}

// communityLevel is the level file format of the community tools. Only
// levelData is used; the other fields are accepted and ignored. "kind" is
// optional so the files load as they are (the registry needs it, though).
type communityLevel struct {
	Kind          *string                    `json:"kind"`
	WidthNum      json.RawMessage            `json:"widthNum"`
	HeightNum     json.RawMessage            `json:"heightNum"`
	LevelKey      json.RawMessage            `json:"levelKey"`
	BlockTypeData json.RawMessage            `json:"blockTypeData"`
	LevelData     map[string][]communityTile `json:"levelData"`
}

func parseCommunity(data []byte) (*Level, error) {
	var in communityLevel
	if err := solver.DecodeStrict(data, &in); err != nil {
		return nil, err
	}
	if in.Kind != nil && *in.Kind != Name {
		return nil, solver.Errorf("kind", "must be %q, got %q", Name, *in.Kind)
	}
	keys := make([]string, 0, len(in.LevelData))
	n := 0
	for k, ts := range in.LevelData {
		keys = append(keys, k)
		n += len(ts)
		if n > MaxTiles {
			break
		}
	}
	if err := checkCount(n, "levelData"); err != nil {
		return nil, err
	}
	sort.Strings(keys)
	raw := make([]rawTile, 0, n)
	for _, k := range keys {
		for i, t := range in.LevelData[k] {
			f := fmt.Sprintf("levelData[%s][%d]", strconv.Quote(k), i)
			r, err := communityRaw(f, t)
			if err != nil {
				return nil, err
			}
			raw = append(raw, r)
		}
	}
	return build(DefaultSlots, DefaultTileSize, true, raw)
}

func communityRaw(f string, t communityTile) (rawTile, error) {
	r := rawTile{field: f}
	if t.ID == nil {
		return r, solver.Errorf(f+".id", "missing")
	}
	r.ID = *t.ID
	if t.Type == nil {
		return r, solver.Errorf(f+".type", "missing")
	}
	if *t.Type == 0 {
		return r, solver.Errorf(f+".type", "0 means no type assigned yet; assign every tile a type (1 or more) before solving")
	}
	if *t.Type < 0 || *t.Type > MaxTypeValue {
		return r, solver.Errorf(f+".type", "must be in [1, %d], got %d", MaxTypeValue, *t.Type)
	}
	r.Type = *t.Type
	if t.MoldType != nil && *t.MoldType < 0 {
		return r, solver.Errorf(f+".moldType", "must not be negative, got %d", *t.MoldType)
	}
	var err error
	if r.X, err = intIn(f+".rolNum", t.RolNum, -1, 0, MaxCoord); err != nil {
		return r, err
	}
	if r.Y, err = intIn(f+".rowNum", t.RowNum, -1, 0, MaxCoord); err != nil {
		return r, err
	}
	r.Layer, err = intIn(f+".layerNum", t.LayerNum, -1, 0, MaxLayer)
	return r, err
}
