// Package zuma is the "zuma" puzzle kind: a row of colored balls, balls are
// inserted one at a time, and every maximal run of 3 or more equal balls
// vanishes, its two sides joining (chain reaction). See docs/formats.md.
//
// # Levels
//
//	{"kind":"zuma","board":"WWRRBBWW","hand":"WRBRW"}   hand mode
//	{"kind":"zuma","board":"RRWWRRBBRR"}                unlimited mode
//	{"kind":"zuma","board":"BBRRGGBRRG","ammo":"RGBRB"} ammo mode
//
// Colors are 'A'–'Z'. The board holds at least one ball and no run of 3+.
// hand and ammo are mutually exclusive. Limits: the board holds at most
// [MaxBoardUnlimited] balls in unlimited mode and [MaxBoard] in hand and
// ammo modes; hand and ammo hold at most [MaxHand] balls. The canonical
// form sorts the hand (a multiset) and keeps the ammo order.
//
// # Results
//
// Plans are JSON arrays of [Move], e.g. [{"at":3,"ball":"R"}], each applied
// to the board as it is then. Details always carry "mode".
//
//   - hand: Value = fewest insertions, optimal, proof "lower-bound" (the
//     admissible bound met) or "exhaustive" (iterative deepening); or
//     verdict unsolvable with proof "exhaustive" and no plan.
//   - unlimited: Value = insertions of a verified plan; optimal when proven,
//     otherwise optimal false with Stats.LowerBound/UpperBound. Boards longer
//     than [MaxSearchUnlimited] balls are not searched: they get the run-DP
//     plan and bounds at once.
//   - ammo: Value = balls vanished (shot balls included), the player may stop
//     early, ties go to fewer shots; Details "cleared" (board empty after the
//     last shot of the plan) and "shots" (plan length).
//
// # Solvers
//
// Hand and unlimited modes run IDA* over canonical states (board, sorted
// hand) with a transposition table, using the relaxation bound of
// bound.go, which is admissible; in hand mode it is strengthened by
// pricing the colors the hand is short of (Lagrangian bounds), and a
// counting test decides many unsolvable levels before any DP. No move is
// pruned except exact duplicates (inserting a ball anywhere in or next to
// a run of its own color gives one board). Ammo mode is a depth-first
// branch and bound over (shots, board). All searches checkpoint their
// stack and resume from it.
package zuma

import (
	"context"
	"fmt"

	"github.com/puzzled/puzzled/solver"
)

// Limits enforced by Parse.
const (
	MaxBoardUnlimited  = 10000 // balls on the board in unlimited mode
	MaxBoard           = 64    // balls on the board in hand and ammo modes
	MaxHand            = 16    // balls in hand or ammo
	MaxSearchUnlimited = 64    // longest unlimited board that is searched
)

// Kind name and solver version.
const (
	Name    = "zuma"
	Version = "zuma/2"
)

type kind struct{}

// New returns the zuma kind.
func New() solver.Kind { return kind{} }

func (kind) Name() string    { return Name }
func (kind) Version() string { return Version }

func (kind) Parse(data []byte) (solver.Level, error) { return Parse(data) }

func (kind) Solve(ctx context.Context, lvl solver.Level, opts solver.Options) (solver.Result, error) {
	l, ok := lvl.(*Level)
	if !ok {
		return solver.Result{}, fmt.Errorf("zuma: level of kind %q", lvl.Kind())
	}
	switch l.Mode {
	case ModeHand:
		return solveHand(ctx, l, opts)
	case ModeAmmo:
		return solveAmmo(ctx, l, opts)
	default:
		return solveUnlimited(ctx, l, opts)
	}
}

func (kind) Verify(lvl solver.Level, res solver.Result) error {
	l, ok := lvl.(*Level)
	if !ok {
		return fmt.Errorf("zuma: level of kind %q", lvl.Kind())
	}
	return Verify(l, res)
}
