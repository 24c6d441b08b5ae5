package sheep

import (
	"context"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/puzzled/puzzled/solver"
)

// FuzzParse: Parse never panics; an accepted level has a canonical form
// that parses back to the same canonical bytes.
func FuzzParse(f *testing.F) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 8 {
		f.Add(smallLevel(rng))
	}
	if b, err := os.ReadFile("testdata/community_level.json"); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`{"kind":"sheep","tiles":[{"id":"a","type":1,"covers":["b"]},{"id":"b","type":1,"covers":["a"]}]}`))
	f.Add([]byte(`{"levelData":{"1":[{"id":"a","type":0,"rolNum":0,"rowNum":0,"layerNum":1}]}}`))
	f.Add([]byte(captureShaped))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := Parse(data)
		if err != nil {
			return
		}
		again, err := Parse(l.Canonical())
		if err != nil {
			t.Fatalf("canonical %s does not parse: %v", l.Canonical(), err)
		}
		if string(again.Canonical()) != string(l.Canonical()) {
			t.Fatalf("canonical not stable:\n%s\n%s", l.Canonical(), again.Canonical())
		}
	})
}

// FuzzReplay drives the simulator with arbitrary click sequences on a
// fuzzed small level: Replay never panics, the incremental board agrees
// with it click by click, and a small solve verifies.
func FuzzReplay(f *testing.F) {
	f.Add(uint64(1), []byte{0, 1, 2, 3, 4, 5})
	f.Add(uint64(7), []byte{3, 3, 9, 1, 0, 0, 0, 2})
	f.Fuzz(func(t *testing.T, seed uint64, clicks []byte) {
		l := mustParse(t, smallLevel(rand.New(rand.NewPCG(seed, 0))))
		n := len(l.tiles)
		b := newBoard(l)
		var line []int32
		for _, c := range clicks {
			i := int32(int(c) % n)
			o, err := replay(l, append(line, i))
			clickable := b.clickable(i)
			if (err == nil) != clickable {
				t.Fatalf("replay err %v, board clickable %t", err, clickable)
			}
			if err != nil {
				break
			}
			b.apply(i)
			line = append(line, i)
			if b.traySize != o.Tray || b.cleared() != o.Cleared {
				t.Fatalf("board tray %d cleared %d, replay %+v", b.traySize, b.cleared(), o)
			}
			if o.Lost {
				break
			}
		}
		for k := len(line) - 1; k >= 0; k-- {
			b.undo(line[k])
		}
		fresh := newBoard(l)
		if b.traySize != 0 || b.hash != 0 || len(b.clk) != len(fresh.clk) || b.left != n {
			t.Fatalf("undo did not restore the start")
		}
		res, err := Solve(context.Background(), l, solver.Options{Budget: solver.Budget{MaxNodes: 5000}})
		if err != nil {
			t.Fatal(err)
		}
		if err := Verify(l, res); err != nil {
			t.Fatal(err)
		}
	})
}

// resumeFuzzSchedule has every phase a payload can hold: pass 0, the
// projection phase, beams (one always deferred), restarts and the
// unlimited pass with its deferred beam. everyPhaseLevel goes through
// them all.
var resumeFuzzSchedule = schedule{first: 40, restart: 20, restarts: 3,
	proj:  projectionPlan{extra: 2, subsets: 6, perNodes: 30, total: 180},
	beams: []beamRun{{width: 2, dig: 100}, {width: 16, dig: 100, near: 101}}, lateBeams: 30}

// FuzzResume: the payload decoder never panics or hangs, whatever the
// bytes: a search resumes from them or rejects them with errPayload. The
// fuzzer changes the payload behind the magic and this test seals it with
// a fresh checksum, so the decoder itself is exercised, not only the
// checksum. (A payload comes from our own worker; the checksum guards
// against damage, not forgery, so an accepted forged payload may claim
// states dead and make a verdict wrong: that is not checked here.)
func FuzzResume(f *testing.F) {
	l := everyPhaseLevel(f)
	// pass 0, projections, beams after every subset was tried, a
	// restart, the deferred beam in the unlimited pass, after it
	for _, nodes := range []int64{20, 60, 114, 250, 400, 900} {
		var got []byte
		opts := solver.Options{Budget: solver.Budget{MaxNodes: nodes}, CheckpointEvery: time.Nanosecond,
			Checkpoint: func(b []byte) { got = append(got[:0], b...) }}
		if _, err := solveWith(context.Background(), l, opts, resumeFuzzSchedule); err != nil {
			f.Fatal(err)
		}
		if p := solver.CheckpointPayload(got); len(p) > len(payloadMagic)+8 {
			f.Add(p[len(payloadMagic) : len(p)-8]) // the body behind the magic, without the checksum
		}
		if nodes == 900 {
			f.Add(withCompressedDead(f, l, got))
		}
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		p := append([]byte(payloadMagic), body...)
		p = binary.LittleEndian.AppendUint64(p, checksum(p))
		envelope := append(make([]byte, 20), p...)
		copy(envelope, "PZC1")
		opts := solver.Options{Resume: envelope, Budget: solver.Budget{MaxNodes: 5000}}
		if _, err := solveWith(context.Background(), l, opts, resumeFuzzSchedule); err != nil && !errors.Is(err, errPayload) {
			t.Fatalf("resume failed with %v, not a payload error", err)
		}
	})
}

// withCompressedDead is the payload body of checkpoint blob with 2,000
// random states added to its unlimited pass's table, so that its dead
// states are compressed (a small level's never are).
func withCompressedDead(tb testing.TB, l *Level, blob []byte) []byte {
	s := newSearch(l, nil, resumeFuzzSchedule)
	if err := s.resume(solver.CheckpointPayload(blob)); err != nil {
		tb.Fatal(err)
	}
	if s.sched.limit(s.pass) > 0 {
		tb.Fatalf("pass %d is not the unlimited pass", s.pass)
	}
	rng := rand.New(rand.NewPCG(9, 9))
	key := make([]uint64, s.dead.w)
	for range 2000 {
		clear(key)
		h := uint64(0)
		for i := range l.tiles {
			if rng.IntN(2) == 0 {
				key[i/64] |= 1 << (i % 64)
				h ^= s.b.zob[i]
			}
		}
		if !s.dead.contains(h, key) {
			s.dead.add(h, key, 1+rng.Int64N(1<<20))
		}
	}
	p := s.encode()
	return p[len(payloadMagic) : len(p)-8]
}

// everyPhaseLevel is a small unsolvable level that resumeFuzzSchedule
// takes through every phase in 1,143 nodes (found by a scan of
// smallLevel seeds).
func everyPhaseLevel(tb testing.TB) *Level {
	tb.Helper()
	return mustParse(tb, smallLevel(rand.New(rand.NewPCG(466, 466))))
}
