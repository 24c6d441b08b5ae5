package difficulty

import "context"

// Status is where a game stands.
type Status int8

// The three statuses.
const (
	Playing Status = iota
	Won
	Lost
)

// Game is one level being played: a mutable position that moves forward
// with Play and back with Undo. A Game is not safe for concurrent use;
// each playout goroutine gets its own from a [NewGame].
//
// Every game must end: along any sequence of moves, Status leaves Playing
// after finitely many moves (a Playing position with no move is treated
// as lost).
type Game interface {
	// Moves appends the legal moves of the current position to dst. The
	// order must depend only on the position and the moves played to
	// reach it, so playouts are reproducible.
	Moves(dst []int) []int
	// Play plays move m, one of the last Moves.
	Play(m int)
	// Undo takes back the last Play.
	Undo()
	// Status tells whether the position is won, lost or still playing.
	Status() Status
	// Greedy rates move m for the greedy player: it plays a move of the
	// highest value, ties broken at random. Higher is better.
	Greedy(m int) int
	// Key appends an exact identity of the position (two positions with
	// the same key have the same future) for the exact search's memo.
	Key(dst []byte) []byte
}

// Decider is an optional method set of a [Game] whose kind has a solver
// that decides a position much faster than plain search (bounds, pruning).
// The exact search asks it instead of searching below the position.
type Decider interface {
	// Decide reports whether the current position can still be won, and
	// the nodes the kind's solver spent; ok is false when it could not
	// tell within maxNodes.
	Decide(ctx context.Context, maxNodes int64) (win bool, nodes int64, ok bool)
}

// NewGame returns a fresh game at the level's start.
type NewGame func() Game
