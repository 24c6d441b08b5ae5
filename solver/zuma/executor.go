package zuma

import "context"

// runChunk is how many runs the run DP sees at once on long boards; the
// DP is cubic, chunks keep a 10,000-ball board linear.
const runChunk = 48

// incumbent builds a verified-by-construction plan for unlimited mode:
// the run DP's fills (chunk by chunk on long boards), played on the real
// board with the simulator. When play drifts from the DP's assumptions
// (an unplanned join), a fill whose run is already gone is skipped and a
// merged run is filled as it is. Whatever remains at the end is cleared by
// filling the leftmost run, which never joins anything.
func incumbent(ctx context.Context, b []byte) ([]move, error) {
	color, length := runs(b)
	var acts []int32
	for lo := 0; lo < len(color); lo += runChunk {
		hi := min(lo+runChunk, len(color))
		acts = newRunDP(color[lo:hi], length[lo:hi]).actions(acts, int32(lo))
	}
	ex := newExecutor(b, length)
	for i, id := range acts {
		if i&255 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		ex.fill(id)
	}
	for len(ex.board) > 0 {
		ex.fill(ex.ids[0])
	}
	return ex.plan, nil
}

type executor struct {
	board []byte
	ids   []int32 // original run of each ball; inserted balls join a run
	plan  []move
	nb    []byte
	nids  []int32
}

func newExecutor(b []byte, length []int8) *executor {
	ex := &executor{board: append([]byte(nil), b...), ids: make([]int32, 0, len(b))}
	for r, n := range length {
		for range n {
			ex.ids = append(ex.ids, int32(r))
		}
	}
	return ex
}

// fill inserts balls into the run holding run id's balls until they vanish.
func (ex *executor) fill(id int32) {
	for {
		i := 0
		for i < len(ex.ids) && ex.ids[i] != id {
			i++
		}
		if i == len(ex.ids) {
			return
		}
		c := ex.board[i]
		for i > 0 && ex.board[i-1] == c {
			i--
		}
		ex.play(i, c, id)
	}
}

func (ex *executor) play(at int, c byte, id int32) {
	ex.plan = append(ex.plan, move{at: at, ball: c})
	lo, hi := chain(ex.board, at, c)
	if lo == hi {
		lo, hi = at, at // nothing vanishes; keep everything
	}
	n := len(ex.board) + 1
	ex.nb, ex.nids = ex.nb[:0], ex.nids[:0]
	for v := 0; v < n; v++ {
		if v >= lo && v < hi {
			continue
		}
		switch {
		case v < at:
			ex.nb, ex.nids = append(ex.nb, ex.board[v]), append(ex.nids, ex.ids[v])
		case v == at:
			ex.nb, ex.nids = append(ex.nb, c), append(ex.nids, id)
		default:
			ex.nb, ex.nids = append(ex.nb, ex.board[v-1]), append(ex.nids, ex.ids[v-1])
		}
	}
	ex.board, ex.nb = ex.nb, ex.board
	ex.ids, ex.nids = ex.nids, ex.ids
}
