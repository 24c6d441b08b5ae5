package sheep

import (
	"encoding/json"
	"fmt"

	"github.com/puzzled/puzzled/solver"
)

// Tile is one tile of a level. With geometry, X, Y and Layer place it;
// with explicit covers, Covers lists the ids of the tiles it covers.
type Tile struct {
	ID     string
	Type   int
	X, Y   int
	Layer  int
	Covers []string
}

// Level is a parsed, validated sheep level with its cover graph. It is
// immutable and safe for concurrent use.
type Level struct {
	slots    int
	tileSize int
	geometry bool   // false: explicit covers
	tiles    []Tile // sorted by id; tile index = position here

	index map[string]int32 // id → tile index
	typ   []uint8          // tile index → dense type (0..len(types)-1)
	types []int            // dense type → type value
	below [][]int32        // tiles each tile covers, ascending
	above []int32          // number of tiles covering each tile
	dom   [][]int32        // same-type tiles that dominate each tile (see graph.go)
	// beneath counts the tiles transitively below each tile: the move
	// ordering digs into the deepest stacks first.
	beneath []int32

	canonical []byte
	// ignored names the fields of a community file that are not part of
	// its documented format (community.go); not part of the canonical form.
	ignored []string
}

// Kind implements solver.Level.
func (l *Level) Kind() string { return Name }

// Canonical implements solver.Level: compact native JSON, "kind" first,
// tiles sorted by id.
func (l *Level) Canonical() []byte { return l.canonical }

// IgnoredFields names the fields of a community file that were ignored
// because they are not part of the format ("map_seed",
// "levelData[*][*].extra"), sorted; nil for native files.
func (l *Level) IgnoredFields() []string { return append([]string(nil), l.ignored...) }

// Slots is the tray size: holding this many tiles loses the game.
func (l *Level) Slots() int { return l.slots }

// NumTiles is the number of tiles.
func (l *Level) NumTiles() int { return len(l.tiles) }

// Tiles returns a copy of the tiles, sorted by id.
func (l *Level) Tiles() []Tile {
	out := make([]Tile, len(l.tiles))
	for i, t := range l.tiles {
		t.Covers = append([]string(nil), t.Covers...)
		out[i] = t
	}
	return out
}

// Clickable lists the ids of the tiles clickable at the start.
func (l *Level) Clickable() []string {
	var ids []string
	for i, n := range l.above {
		if n == 0 {
			ids = append(ids, l.tiles[i].ID)
		}
	}
	return ids
}

func asLevel(lvl solver.Level) (*Level, error) {
	l, ok := lvl.(*Level)
	if !ok || l == nil {
		return nil, fmt.Errorf("sheep: level of kind %q is not a sheep level", kindOf(lvl))
	}
	return l, nil
}

func kindOf(lvl solver.Level) string {
	if lvl == nil {
		return "<nil>"
	}
	return lvl.Kind()
}

type canonGeoTile struct {
	ID    string `json:"id"`
	Type  int    `json:"type"`
	X     int    `json:"x"`
	Y     int    `json:"y"`
	Layer int    `json:"layer"`
}

type canonCoverTile struct {
	ID     string   `json:"id"`
	Type   int      `json:"type"`
	Covers []string `json:"covers"`
}

type canonGeo struct {
	Kind     string         `json:"kind"`
	Slots    int            `json:"slots"`
	TileSize int            `json:"tile_size"`
	Tiles    []canonGeoTile `json:"tiles"`
}

type canonCovers struct {
	Kind  string           `json:"kind"`
	Slots int              `json:"slots"`
	Tiles []canonCoverTile `json:"tiles"`
}

// encodeCanonical renders the canonical JSON; tiles are already sorted.
func encodeCanonical(l *Level) []byte {
	var v any
	if l.geometry {
		c := canonGeo{Kind: Name, Slots: l.slots, TileSize: l.tileSize, Tiles: make([]canonGeoTile, len(l.tiles))}
		for i, t := range l.tiles {
			c.Tiles[i] = canonGeoTile{ID: t.ID, Type: t.Type, X: t.X, Y: t.Y, Layer: t.Layer}
		}
		v = c
	} else {
		c := canonCovers{Kind: Name, Slots: l.slots, Tiles: make([]canonCoverTile, len(l.tiles))}
		for i, t := range l.tiles {
			cv := t.Covers
			if cv == nil {
				cv = []string{}
			}
			c.Tiles[i] = canonCoverTile{ID: t.ID, Type: t.Type, Covers: cv}
		}
		v = c
	}
	b, err := json.Marshal(v)
	if err != nil { // cannot happen: plain structs of strings and ints
		panic("sheep: canonical encoding: " + err.Error())
	}
	return b
}
