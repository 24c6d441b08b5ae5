package sheep

import "math/rand/v2"

// tripleQuota splits the level's n/3 triples among the types 1..k as
// evenly as possible, the remainder going to random types.
func tripleQuota(rng *rand.Rand, n, k int) []int {
	q := make([]int, k+1) // index = type value; q[0] unused
	t := n / 3
	for v := 1; v <= k; v++ {
		q[v] = t / k
	}
	for _, v := range rng.Perm(k)[:t%k] {
		q[v+1]++
	}
	return q
}

// assignShuffled gives the tiles a random shuffle of the types.
func assignShuffled(rng *rand.Rand, raw []rawTile, o GenerateOpts) {
	var bag []int
	for v, c := range tripleQuota(rng, len(raw), o.Types) {
		for range 3 * c {
			bag = append(bag, v)
		}
	}
	rng.Shuffle(len(bag), func(i, j int) { bag[i], bag[j] = bag[j], bag[i] })
	for i := range raw {
		raw[i].Type = bag[i]
	}
}

// assignAlongLine clicks the tiles in a random order that is legal (each
// tile clickable when clicked) and types them along the way: a click either
// opens a triple of a type not in the tray or adds to an open one, so the
// tray never holds more than maxTray tiles and every triple closes by the
// end. That line wins, so the level is solvable; it is returned as indices
// into raw.
func assignAlongLine(rng *rand.Rand, raw []rawTile, o GenerateOpts) []int {
	tiles := make([]Tile, len(raw))
	for i, r := range raw {
		tiles[i] = r.Tile
	}
	below := geometryBelow(tiles, DefaultTileSize)
	cov := make([]int, len(raw))
	for _, bs := range below {
		for _, b := range bs {
			cov[b]++
		}
	}
	var clk []int
	for i, c := range cov {
		if c == 0 {
			clk = append(clk, i)
		}
	}
	maxTray := min(5, o.Slots-1)
	quota := tripleQuota(rng, len(raw), o.Types)
	open := map[int]int{} // type → tiles of it in the tray
	tray, needs := 0, 0
	line := make([]int, 0, len(raw))
	for r := len(raw); r > 0; r-- {
		k := rng.IntN(len(clk))
		i := clk[k]
		clk[k] = clk[len(clk)-1]
		clk = clk[:len(clk)-1]
		for _, b := range below[i] {
			if cov[b]--; cov[b] == 0 {
				clk = append(clk, int(b))
			}
		}
		free := freeTypes(quota, open)
		canOpen := tray+1 <= maxTray && needs+2 <= r-1 && len(free) > 0
		if canOpen && allSingles(open) && tray+2 > maxTray {
			canOpen = false // closing would then need one more tray place
		}
		if canOpen && (len(open) == 0 || rng.IntN(2) == 0) {
			v := free[rng.IntN(len(free))]
			quota[v]--
			open[v] = 1
			raw[i].Type = v
			tray++
			needs += 2
		} else {
			v := pickOpen(rng, open, len(quota), tray+1 > maxTray)
			raw[i].Type = v
			needs--
			if open[v]++; open[v] == 3 {
				delete(open, v)
				tray -= 2
			} else {
				tray++
			}
		}
		line = append(line, i)
	}
	return line
}

func freeTypes(quota []int, open map[int]int) []int {
	var free []int
	for v, q := range quota {
		if _, isOpen := open[v]; q > 0 && !isOpen {
			free = append(free, v)
		}
	}
	return free
}

// allSingles reports whether every open triple has one tile in the tray.
func allSingles(open map[int]int) bool {
	for _, c := range open {
		if c != 1 {
			return false
		}
	}
	return true
}

// pickOpen picks an open type at random (only ones that complete their
// triple when full is set), deterministically for a given rng. The
// invariant kept by assignAlongLine (a full tray is never all singles)
// guarantees a candidate.
func pickOpen(rng *rand.Rand, open map[int]int, types int, full bool) int {
	var cands []int
	for v := 1; v < types; v++ {
		if c, ok := open[v]; ok && (!full || c == 2) {
			cands = append(cands, v)
		}
	}
	return cands[rng.IntN(len(cands))]
}
