package difficulty

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
)

// The ladder: players of growing skill, and where on it players start to
// win a level (docs/difficulty.md).
//
// Rung 0 is the random player and rung 1 the greedy player (their
// playouts are the figures' random and greedy rates). Rung k ≥ 2 is the
// beam player of width Widths[k-2] (beam.go): it keeps that many
// positions per move depth, rated by the kind's Eval with a little noise,
// so each of its games is a different seeded run, and it drops the
// positions the kind can tell are lost (Doomer). Rung K+1, past the last
// (K = len(Widths)+1), is the exact player (the kind's solver), which
// wins every solvable level. A level's position is where the win rate
// crosses one half, interpolated between the rungs around the crossing.

// DefaultRungGames is the number of games per beam rung when the options
// do not say: enough to tell "mostly wins" from "mostly loses" (beam win
// rates climb steeply with the width), cheap enough for the wide beams on
// 255-tile sheep deals.
const DefaultRungGames = 16

// DefaultLadderNodes bounds the positions the beam rungs of one level
// may rate; a rung that would not fit is not played and the ladder is
// reported incomplete.
const DefaultLadderNodes = 40_000_000

// DefaultWidths are the beam widths of rungs 2..K: powers of two, so each
// rung keeps twice the positions of the one below, from 2 (one more line
// than the greedy player follows) to 256, past which the deals of the
// game's own layouts are rare (docs/difficulty.md).
var DefaultWidths = []int{2, 4, 8, 16, 32, 64, 128, 256}

// Ladder is the ladder part of the figures.
type Ladder struct {
	// Rungs played, weakest first: rung 0 the random player, 1 the
	// greedy player, then the beams up to the first rung that wins at
	// least half its games (all of them with Options.FullLadder).
	Rungs []Rung `json:"rungs"`
	// Top is the last rung, K; K+1 is the exact player.
	Top int `json:"top"`
	// Position is where players start to win, in rungs (0 to K+1): the
	// weakest rung that wins at least half its games, interpolated
	// linearly in win rate with the rung below it; K+1 is the exact
	// player, which wins every solvable level.
	Position float64 `json:"position"`
	// Complete is false when the node budget stopped the climb before a
	// rung won half its games: Position is then a lower bound.
	Complete bool `json:"complete"`
	// Nodes is the positions the beam rungs rated in all.
	Nodes int64 `json:"nodes"`
}

// Rung is the win rate of one rung's player.
type Rung struct {
	Player string `json:"player"`          // "random", "greedy" or "beam"
	Width  int    `json:"width,omitempty"` // beam width
	Rate
	Nodes int64 `json:"nodes,omitempty"` // positions rated by all its games
}

// climb plays the beam rungs of opts from the weakest up, after the
// random and greedy rungs (already measured), and fills the ladder of a
// solvable level.
// It stops after the first rung that wins at least half its games, unless
// opts.FullLadder, and, leaving the ladder incomplete, before a rung
// whose cost, estimated from the rung below (it grows with the width),
// would pass the node budget, or when ctx's deadline passes.
func climb(ctx context.Context, newGame NewGame, random, greedy *Rate, opts Options) (*Ladder, error) {
	lad := &Ladder{Top: len(opts.Widths) + 1, Complete: true}
	lad.Rungs = append(lad.Rungs, Rung{Player: "random", Rate: *random}, Rung{Player: "greedy", Rate: *greedy})
	won := random.Rate >= 0.5 || greedy.Rate >= 0.5
	var last int64
	for k, w := range opts.Widths {
		if won && !opts.FullLadder {
			break
		}
		if k > 0 && last*int64(w)/int64(opts.Widths[k-1]) > opts.LadderNodes-lad.Nodes {
			lad.Complete = won
			break
		}
		r, nodes, err := beamRung(ctx, newGame, w, k+2, opts)
		if errors.Is(err, context.DeadlineExceeded) {
			// Out of time, not canceled: the rungs played still tell
			// where players start to win, at least.
			lad.Complete = won
			break
		}
		if err != nil {
			return nil, err
		}
		lad.Rungs = append(lad.Rungs, Rung{Player: "beam", Width: w, Rate: *r, Nodes: nodes})
		lad.Nodes += nodes
		last = max(nodes, 1)
		won = won || r.Rate >= 0.5
	}
	lad.Position = position(lad.Rungs)
	return lad, nil
}

// position is where the win rate of rungs (weakest first, rung i at
// index i) first reaches one half, interpolated with the rung below; when
// no rung reaches it, the exact player one rung above the last wins all.
func position(rungs []Rung) float64 {
	prev := 0.0
	for i, r := range rungs {
		p := r.Rate.Rate
		if p >= 0.5 {
			if i == 0 {
				return 0
			}
			return float64(i-1) + (0.5-prev)/(p-prev)
		}
		prev = p
	}
	return float64(len(rungs)-1) + (0.5-prev)/(1-prev)
}

// earlyGames is the first chunk of a rung's games: a rung that wins none
// of them stops there (its rate 0 of earlyGames). Beam win rates climb
// steeply with the width, so such a rung is far below the crossing, and
// the position only needs the rates of the two rungs around it. Games
// are decided in index order, so the stop does not depend on workers.
const earlyGames = 4

// beamRung plays the games of the beam player of width w, the ladder's
// rung k: opts.RungGames, or earlyGames when those win nothing. Game i
// draws its noise from a generator seeded with (seed, k, i) alone, so
// the rate does not depend on workers.
func beamRung(ctx context.Context, newGame NewGame, w, k int, opts Options) (*Rate, int64, error) {
	n := opts.RungGames
	first := min(earlyGames, n)
	wins, nodes, err := beamGames(ctx, newGame, w, k, 0, first, opts)
	if err != nil {
		return nil, 0, err
	}
	if wins == 0 {
		n = first
	} else if n > first {
		more, used, err := beamGames(ctx, newGame, w, k, first, n, opts)
		if err != nil {
			return nil, 0, err
		}
		wins, nodes = wins+more, nodes+used
	}
	return newRate(wins, n), nodes, nil
}

// beamGames plays games from..to-1 of rung k (width w) on opts.Workers
// goroutines and returns their wins and the positions they rated.
func beamGames(ctx context.Context, newGame NewGame, w, k, from, to int, opts Options) (int, int64, error) {
	workers := min(max(opts.Workers, 1), to-from)
	next := atomic.Int64{}
	next.Store(int64(from))
	var wins, nodes atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			root := newGame().(BeamGame)
			p := newBeamPlayer(w, opts.Noise)
			for ctx.Err() == nil {
				i := next.Add(1) - 1
				if i >= int64(to) {
					return
				}
				rng := rand.New(rand.NewPCG(opts.Seed, uint64(k+2)<<48^uint64(i)))
				won, used, err := p.play(ctx, root, rng)
				nodes.Add(used)
				if err == nil && won {
					wins.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return 0, 0, fmt.Errorf("difficulty: beam rung %d: %w", k, err)
	}
	return int(wins.Load()), nodes.Load(), nil
}
