package sheep

import (
	"encoding/json"
	"fmt"

	"github.com/puzzled/puzzled/solver"
)

// Position implements solver.Positioner. The moves are the clickable
// tiles' ids. The position's level keeps the tiles left on the field, with
// what covers what written as explicit covers, and puts the tiles in the
// tray back on top of everything: each covers every tile that is clickable
// here, so a line of that level clicks them first (they refill the tray
// exactly, and cannot vanish or fill it: the tray holds fewer than slots
// and at most two of a type) and then goes on as a line from here would.
// Skip is the number of tiles in the tray.
func (kind) Position(lvl solver.Level, plan json.RawMessage) (solver.Position, error) {
	l, err := asLevel(lvl)
	if err != nil {
		return solver.Position{}, err
	}
	var ids []string
	if len(plan) > 0 {
		if err := json.Unmarshal(plan, &ids); err != nil {
			return solver.Position{}, fmt.Errorf("sheep: plan is not an array of tile ids: %w", err)
		}
	}
	return position(l, ids)
}

func position(l *Level, ids []string) (solver.Position, error) {
	o, err := Replay(l, ids)
	if err != nil {
		return solver.Position{}, err
	}
	p := solver.Position{Won: o.Won, Lost: o.Lost, Over: o.Won || o.Lost, Sign: 1, Goal: true}
	if o.Won || o.Lost {
		return p, nil
	}
	gone := make([]bool, len(l.tiles))
	cov := append([]int32(nil), l.above...)
	var tray []int32
	for _, id := range ids {
		i := l.index[id]
		gone[i] = true
		for _, c := range l.below[i] {
			cov[c]--
		}
		tray = appendTray(l, tray, i)
	}
	var top []string
	for i, t := range l.tiles {
		if !gone[i] && cov[i] == 0 {
			top = append(top, t.ID)
			mv, _ := json.Marshal(t.ID)
			p.Moves = append(p.Moves, mv)
		}
	}
	if len(p.Moves) == 0 {
		// The field is empty and the tray is not: types whose count is not
		// a multiple of three are left over, and no click is possible.
		p.Lost, p.Over = true, true
		return p, nil
	}
	p.Level, err = positionLevel(l, gone, tray, top)
	p.Skip = len(tray)
	return p, err
}

// appendTray adds tile i to the tray and removes the three of its type
// when it completes them.
func appendTray(l *Level, tray []int32, i int32) []int32 {
	tray = append(tray, i)
	n := 0
	for _, j := range tray {
		if l.typ[j] == l.typ[i] {
			n++
		}
	}
	if n < 3 {
		return tray
	}
	kept := tray[:0]
	for _, j := range tray {
		if l.typ[j] != l.typ[i] {
			kept = append(kept, j)
		}
	}
	return kept
}

// positionLevel writes the position as a native level with explicit
// covers and parses it.
func positionLevel(l *Level, gone []bool, tray []int32, top []string) (*Level, error) {
	type tile struct {
		ID     string   `json:"id"`
		Type   int      `json:"type"`
		Covers []string `json:"covers"`
	}
	var tiles []tile
	for i, t := range l.tiles {
		if gone[i] {
			continue
		}
		covers := []string{}
		for _, c := range l.below[i] {
			if !gone[c] {
				covers = append(covers, l.tiles[c].ID)
			}
		}
		tiles = append(tiles, tile{ID: t.ID, Type: t.Type, Covers: covers})
	}
	for _, i := range tray {
		tiles = append(tiles, tile{ID: l.tiles[i].ID, Type: l.tiles[i].Type, Covers: top})
	}
	data, err := json.Marshal(struct {
		Kind  string `json:"kind"`
		Slots int    `json:"slots"`
		Tiles []tile `json:"tiles"`
	}{Name, l.slots, tiles})
	if err != nil {
		return nil, fmt.Errorf("sheep: position: %w", err)
	}
	pl, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("sheep: position does not parse: %w", err)
	}
	return pl, nil
}
