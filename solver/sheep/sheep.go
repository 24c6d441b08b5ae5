// Package sheep is the "sheep" puzzle kind: stacked tiles, a tray of
// `slots` places (default 7), three tiles of a type in the tray vanish
// (docs/formats.md).
//
// # Formats
//
// Parse reads the native format
//
//	{"kind":"sheep","slots":7,"tile_size":8,
//	 "tiles":[{"id":"1-12-12","type":3,"x":12,"y":12,"layer":1}, ...]}
//
// where tiles carry either geometry (x, y, layer; A covers B iff A.layer >
// B.layer and their squares overlap with positive area) or explicit
// "covers" lists (an acyclic graph; geometry is then not used), and the
// community level files (widthNum, heightNum, levelKey, blockTypeData,
// levelData with rolNum/rowNum/layerNum/moldType tiles, tile size 8). The
// canonical form is the native one with tiles sorted by id, so both formats
// of one level hash the same. Community files load as they are found:
// fields outside that format (map_seed, map_seed_2, operations, extra tile
// fields) are ignored and named by [Level.IgnoredFields]; the fields used
// are validated strictly. The native format rejects unknown fields. The
// kind implements solver.Detector, so a community file needs no "kind".
//
// # Results
//
// Plan is the array of tile ids in click order. Details holds "tiles" (the
// number of tiles), "cleared" (tiles that vanished along Plan) and, for a
// community file with fields outside its format, "ignored_fields". Solved
// plans clear every tile; unknown and exhaustive-unsolvable results carry
// the best partial line found (most tiles cleared, never a losing click).
// Unsolvable results say how in Proof: "precheck:type-count",
// "precheck:slots", "exhaustive", or "projection:types=V,..." (the level
// kept to those type values, with the transitive cover relation, was
// searched to exhaustion; project.go proves this sound, Verify repeats
// that search).
//
// # Limits
//
// At most [MaxTiles] tiles, [MaxTypes] distinct types, type values in
// [0, [MaxTypeValue]] (community files: [1, MaxTypeValue]), ids of 1 to
// [MaxIDLen] bytes, slots in [1, [MaxSlots]], tile_size in [1,
// [MaxTileSize]], coordinates in [0, [MaxCoord]], layers in [0, [MaxLayer]].
// These keep parsing O(tiles²) and one search node O(tiles).
//
// # Search
//
// [Kind.Solve] is an exact depth-first search: clickability is kept with a
// covered-by counter per tile (undo on backtrack), a transposition table
// keyed on the exact set of removed tiles (the tray is determined by it)
// stores proven-dead states (at most 224 MB; once full, a new state
// replaces a cheap-to-reprove one, table.go), clickable tiles of one type whose covered sets
// are included in another's are skipped (a proven dominance), and moves are
// ordered: a click completing a triple first, then the tile with the most
// tiles transitively beneath it. Levels of more than 150 tiles are
// searched in passes, each from the start with a fresh table: a limited
// first pass, short restarts whose move order is perturbed by a per-pass
// random bonus, then an unlimited pass with the plain order; smaller
// levels get the unlimited pass at once. Between the first pass and the
// restarts, projections onto a few type subsets are searched for a proof
// (project.go), then beam searches of widths 50 to 8000 (beam.go): each
// keeps the best states of every click depth by a static evaluation (the
// wide ones at most one or two children of any one state, one with a
// little noise; three of width 1000 with different weights of the
// evaluation's terms) and only ever returns a line, which the result replays,
// so it can win but never prove. The wide beams run only after a
// narrower one cleared 80 % of the tiles; otherwise, and for the beam of
// 8000 always, they are deferred until the unlimited pass has searched
// 1M nodes without a proof. After the first beam, and again (larger)
// after the beams where no line came near a win, a retrograde search
// (retro.go) computes the states from which the level can be cleared,
// backwards from the empty board and one tile at a time; if none with j
// tiles left exists for some j, the level is unsolvable. The
// restarts run only when the best line so far cleared 80 % of the tiles
// (elsewhere they never won behind the beams); otherwise the unlimited
// pass follows at once. The unlimited pass and projection
// searches also prune states in which no triple can be completed before
// the tray fills (the tray-pressure bound, pressure.go); the unlimited
// pass also skips clicks that only reorder clicks already tried (sleep
// sets, sleep.go) and does not record states without a move.
// Any pass may win; any pass that exhausts the start proves the level
// unsolvable. Checkpoints (payload version 9) hold the pass,
// the deferred beams, the DFS path as move indices, the projection phase and dead states,
// coded as differences between consecutive states and compressed: the
// whole table of a limited pass (so a resumed run stops the pass where an
// uninterrupted one would), of the unlimited pass's the states whose
// proofs cost the most nodes, 1 MB of them once compressed.
//
// # Deals
//
// [Deal] keeps a layout's tiles and deals the types anew, as the game does
// over a fixed layout; GenerateOpts.Mounds makes generated layouts stack
// into towers like the game's.
package sheep

import (
	"context"
	"encoding/json"

	"github.com/puzzled/puzzled/solver"
)

// Limits enforced by Parse.
const (
	MaxTiles     = 1000
	MaxTypes     = 64
	MaxTypeValue = 1_000_000
	MaxIDLen     = 64
	MaxSlots     = 32
	MaxTileSize  = 1000
	MaxCoord     = 100_000
	MaxLayer     = 10_000

	// DefaultSlots and DefaultTileSize apply when the native format omits them.
	DefaultSlots    = 7
	DefaultTileSize = 8
)

// Name is the kind's registered name.
const Name = "sheep"

type kind struct{}

// New returns the sheep kind.
func New() solver.Kind { return kind{} }

func (kind) Name() string    { return Name }
func (kind) Version() string { return "sheep/17" }

func (kind) Parse(data []byte) (solver.Level, error) { return Parse(data) }

// DetectLevel implements solver.Detector: a JSON object with "levelData"
// is a community sheep file, which carries no "kind".
func (kind) DetectLevel(fields map[string]json.RawMessage) bool {
	_, ok := fields["levelData"]
	return ok
}

func (kind) Solve(ctx context.Context, lvl solver.Level, opts solver.Options) (solver.Result, error) {
	l, err := asLevel(lvl)
	if err != nil {
		return solver.Result{}, err
	}
	return Solve(ctx, l, opts)
}

func (kind) Verify(lvl solver.Level, res solver.Result) error {
	l, err := asLevel(lvl)
	if err != nil {
		return err
	}
	return Verify(l, res)
}
