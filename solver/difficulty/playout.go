package difficulty

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
)

// Player picks moves in a playout.
type Player int

// The two players.
const (
	// RandomPlayer plays a legal move chosen uniformly at random.
	RandomPlayer Player = iota
	// GreedyPlayer plays a move of the highest [Game.Greedy] value, ties
	// broken uniformly at random.
	GreedyPlayer
)

func (p Player) String() string {
	if p == GreedyPlayer {
		return "greedy"
	}
	return "random"
}

// Playouts plays n games with player and counts the wins. Playout i draws
// from a generator seeded with (seed, player, i) alone, so the count does
// not depend on workers or scheduling: the same seed gives the same figure.
// It stops when ctx ends and then returns ctx's error wrapped.
func Playouts(ctx context.Context, newGame NewGame, player Player, n int, seed uint64, workers int) (*Rate, error) {
	if workers < 1 {
		workers = 1
	}
	if workers > n {
		workers = max(n, 1)
	}
	var next, wins atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g := newGame()
			var moves []int
			for ctx.Err() == nil {
				i := next.Add(1) - 1
				if i >= int64(n) {
					return
				}
				rng := rand.New(rand.NewPCG(seed, uint64(player)<<62^uint64(i)))
				if playout(g, player, rng, &moves) {
					wins.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("difficulty: %s playouts: %w", player, err)
	}
	return newRate(int(wins.Load()), n), nil
}

// playout plays one game to its end, takes every move back and reports
// whether it was won.
func playout(g Game, player Player, rng *rand.Rand, moves *[]int) bool {
	played := 0
	defer func() {
		for ; played > 0; played-- {
			g.Undo()
		}
	}()
	for {
		switch g.Status() {
		case Won:
			return true
		case Lost:
			return false
		}
		*moves = g.Moves((*moves)[:0])
		if len(*moves) == 0 {
			return false
		}
		g.Play(pick(g, player, *moves, rng))
		played++
	}
}

// pick chooses the player's move among moves. The greedy player keeps the
// moves of the best value in place at the front of moves and draws one.
func pick(g Game, player Player, moves []int, rng *rand.Rand) int {
	if player == RandomPlayer {
		return moves[rng.IntN(len(moves))]
	}
	best, k := 0, 0
	for _, m := range moves {
		v := g.Greedy(m)
		switch {
		case k == 0 || v > best:
			best, k = v, 0
			moves[k] = m
			k++
		case v == best:
			moves[k] = m
			k++
		}
	}
	return moves[rng.IntN(k)]
}
