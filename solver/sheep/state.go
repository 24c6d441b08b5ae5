package sheep

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/puzzled/puzzled/solver"
)

// StateView is a sheep position for drawing: the tiles still on the
// field (Covered: some remaining tile covers it), the tray in click order,
// and the field's geometry (Geometry false: tiles carry explicit covers and
// X, Y are not meaningful; Layer is then the tile's depth in the cover
// graph, 0 on top).
type StateView struct {
	Slots    int        `json:"slots"`
	TileSize int        `json:"tile_size"`
	Geometry bool       `json:"geometry"`
	Tiles    []ViewTile `json:"tiles"`
	Tray     []TrayTile `json:"tray"`
	Removed  []string   `json:"removed"` // clicked tiles, in id order
	Won      bool       `json:"won"`
	Lost     bool       `json:"lost"`
}

// ViewTile is one tile left on the field.
type ViewTile struct {
	ID      string `json:"id"`
	Type    int    `json:"type"`
	X       int    `json:"x"`
	Y       int    `json:"y"`
	Layer   int    `json:"layer"`
	Covered bool   `json:"covered"`
}

// TrayTile is one tile in the tray.
type TrayTile struct {
	ID   string `json:"id"`
	Type int    `json:"type"`
}

// Cleared is what one click did: the tile clicked and, when it completed
// three of a type, the three tray tiles that vanished.
type Cleared struct {
	Clicked  string   `json:"clicked"`
	Vanished []string `json:"vanished,omitempty"`
}

// States lists the state after each prefix of plan (docs/states.md). Each
// prefix is checked with Replay, the simulator, and the tray count and
// cleared tiles of every state are compared with its outcome.
func States(l *Level, plan []string) ([]solver.State, error) {
	gone := make([]bool, len(l.tiles))
	cov := append([]int32(nil), l.above...)
	depth := l.depths()
	var tray []TrayTile
	cleared := 0
	out := make([]solver.State, 0, len(plan)+1)
	for k := 0; k <= len(plan); k++ {
		o, err := Replay(l, plan[:k])
		if err != nil {
			return nil, err
		}
		st := solver.State{Step: k}
		if k > 0 {
			i := l.index[plan[k-1]]
			gone[i] = true
			for _, c := range l.below[i] {
				cov[c]--
			}
			c := Cleared{Clicked: plan[k-1]}
			tray = append(tray, TrayTile{ID: plan[k-1], Type: l.tiles[i].Type})
			tray, c.Vanished = takeTriple(tray, l.tiles[i].Type)
			cleared += len(c.Vanished)
			st.Move, _ = json.Marshal(plan[k-1])
			st.Cleared = c
		}
		if len(tray) != o.Tray || cleared != o.Cleared {
			return nil, fmt.Errorf("sheep: state %d disagrees with the simulator", k)
		}
		v := StateView{Slots: l.slots, TileSize: l.tileSize, Geometry: l.geometry,
			Tray: append([]TrayTile{}, tray...), Won: o.Won, Lost: o.Lost}
		for i, t := range l.tiles {
			if gone[i] {
				v.Removed = append(v.Removed, t.ID)
				continue
			}
			vt := ViewTile{ID: t.ID, Type: t.Type, X: t.X, Y: t.Y, Layer: t.Layer, Covered: cov[i] > 0}
			if !l.geometry {
				vt.Layer = depth[i]
			}
			v.Tiles = append(v.Tiles, vt)
		}
		st.View = v
		st.Text = stateText(v, k)
		out = append(out, st)
	}
	return out, nil
}

// takeTriple removes the three tiles of type t from the tray when it
// holds three, and returns their ids.
func takeTriple(tray []TrayTile, t int) ([]TrayTile, []string) {
	var ids []string
	for _, x := range tray {
		if x.Type == t {
			ids = append(ids, x.ID)
		}
	}
	if len(ids) < 3 {
		return tray, nil
	}
	kept := tray[:0]
	for _, x := range tray {
		if x.Type != t {
			kept = append(kept, x)
		}
	}
	return kept, ids
}

// depths gives each tile's depth in the cover graph: 0 for a tile no tile
// covers, else one more than its deepest cover. It lays out levels that
// have explicit covers instead of geometry.
func (l *Level) depths() []int {
	d := make([]int, len(l.tiles))
	var walk func(i int32) int
	done := make([]bool, len(l.tiles))
	walk = func(i int32) int {
		if done[i] {
			return d[i]
		}
		done[i] = true
		for j := range l.tiles {
			for _, c := range l.below[j] {
				if c == i {
					d[i] = max(d[i], walk(int32(j))+1)
				}
			}
		}
		return d[i]
	}
	for i := range l.tiles {
		walk(int32(i))
	}
	return d
}

// stateText is the canonical text: "sheep <k>", "tray" with the types in
// the tray ascending, "left" with the number of tiles on the field,
// "clickable" with the uncovered tiles' ids and "removed" with the clicked
// tiles' ids (both in id order); an empty list is "-". Removed and tray
// determine the position.
func stateText(v StateView, k int) string {
	types := make([]string, len(v.Tray))
	trayTypes := make([]int, len(v.Tray))
	for i, t := range v.Tray {
		trayTypes[i] = t.Type
	}
	sort.Ints(trayTypes)
	for i, t := range trayTypes {
		types[i] = strconv.Itoa(t)
	}
	var clickable []string
	for _, t := range v.Tiles {
		if !t.Covered {
			clickable = append(clickable, t.ID)
		}
	}
	return fmt.Sprintf("sheep %d\ntray %s\nleft %d\nclickable %s\nremoved %s", k,
		list(types), len(v.Tiles), list(clickable), list(v.Removed))
}

func list(xs []string) string {
	if len(xs) == 0 {
		return "-"
	}
	return strings.Join(xs, " ")
}

// States implements solver.Stepper.
func (kind) States(lvl solver.Level, plan json.RawMessage) ([]solver.State, error) {
	l, err := asLevel(lvl)
	if err != nil {
		return nil, err
	}
	var ids []string
	if len(plan) > 0 {
		if err := json.Unmarshal(plan, &ids); err != nil {
			return nil, fmt.Errorf("sheep: plan: %w", err)
		}
	}
	return States(l, ids)
}
