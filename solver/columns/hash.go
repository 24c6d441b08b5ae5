package columns

import (
	"encoding/binary"
	"math/bits"
)

// hash identifies a position: the board's cells (column by column, 8 rows
// per word) and the target jewel's position.
func (g *geom) hash(b *board, t target) uint64 {
	words := (g.h + 7) >> 3
	x := uint64(0x243F6A8885A308D3)
	for c := 0; c < g.w; c++ {
		base := c * stride
		for k := 0; k < words; k++ {
			x ^= binary.LittleEndian.Uint64(b.cells[base+8*k:])
			x = bits.RotateLeft64(x*0x9E3779B97F4A7C15, 29)
		}
	}
	x ^= uint64(uint8(t.c))<<8 | uint64(uint8(t.r))
	return fmix64(x)
}

// fmix64 is MurmurHash3's finaliser.
func fmix64(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return x
}
