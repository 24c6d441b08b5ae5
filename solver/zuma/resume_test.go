package zuma

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/puzzled/puzzled/solver"
)

// busyLevels returns up to count random levels of mode whose uninterrupted
// solve takes at least minNodes nodes, with those results.
func busyLevels(t *testing.T, mode Mode, seed uint64, count int, minNodes int64) ([]*Level, []solver.Result) {
	r := rand.New(rand.NewPCG(seed, 7))
	var lvls []*Level
	var want []solver.Result
	for tries := 0; tries < 5000 && len(lvls) < count; tries++ {
		colors := 3 + r.IntN(3)
		n := 10 + r.IntN(7)
		if mode == ModeUnlimited {
			n, minNodes = 12+r.IntN(9), 8
		}
		board := randomBoard(r, n, colors)
		balls := randomBalls(r, 4+r.IntN(3), colors)
		lvl := level(t, board, balls, balls, mode)
		res := solve(t, lvl, solver.Options{Budget: solver.Budget{MaxNodes: 2000}})
		if !finished(res) {
			continue
		}
		if res.Stats.Nodes >= minNodes {
			lvls, want = append(lvls, lvl), append(want, res)
		}
	}
	if len(lvls) < count {
		t.Fatalf("only %d busy %s levels", len(lvls), mode)
	}
	return lvls, want
}

func sameResult(t *testing.T, lvl *Level, got, want solver.Result) {
	t.Helper()
	if got.Verdict != want.Verdict || value(got) != value(want) || got.Optimal != want.Optimal || !bytes.Equal(got.Plan, want.Plan) {
		t.Fatalf("%s: resumed %s %d %s, uninterrupted %s %d %s", lvl.Canonical(), got.Verdict, value(got), got.Plan, want.Verdict, value(want), want.Plan)
	}
	if !got.Stats.Resumed || got.Stats.Nodes < want.Stats.Nodes/2 {
		t.Fatalf("%s: stats %+v after resumes, uninterrupted %+v", lvl.Canonical(), got.Stats, want.Stats)
	}
}

// finished reports whether res is final (not stopped by the budget).
func finished(res solver.Result) bool {
	return res.Verdict != solver.Unknown && (res.Details["mode"] != string(ModeUnlimited) || res.Optimal)
}

// TestResumeBudget stops each search after a few nodes again and again,
// resuming each time from the last checkpoint.
func TestResumeBudget(t *testing.T) {
	t.Parallel()
	for i, mode := range []Mode{ModeHand, ModeUnlimited, ModeAmmo} {
		t.Run(string(mode), func(t *testing.T) {
			t.Parallel()
			lvls, want := busyLevels(t, mode, uint64(i), 10, 20)
			r := rand.New(rand.NewPCG(uint64(i), 9))
			for j, lvl := range lvls {
				var blob []byte
				var nodes int64
				res := solver.Result{Verdict: solver.Unknown}
				for resumes := 0; !finished(res); resumes++ {
					opts := solver.Options{
						Budget:     solver.Budget{MaxNodes: nodes + 1 + r.Int64N(want[j].Stats.Nodes/3+1)},
						Checkpoint: func(b []byte) { blob = append(blob[:0], b...) },
						Resume:     blob,
					}
					res = solve(t, lvl, opts)
					if res.Stats.Nodes < nodes {
						t.Fatalf("%s: nodes went back from %d to %d", lvl.Canonical(), nodes, res.Stats.Nodes)
					}
					nodes = res.Stats.Nodes
					if resumes > 1000 {
						t.Fatalf("%s: no end after 1000 resumes", lvl.Canonical())
					}
				}
				sameResult(t, lvl, res, want[j])
			}
		})
	}
}

// TestResumeCancel cancels the context from the checkpoint hook at random
// checkpoints and resumes from the blob it was handed.
func TestResumeCancel(t *testing.T) {
	t.Parallel()
	for i, mode := range []Mode{ModeHand, ModeUnlimited, ModeAmmo} {
		t.Run(string(mode), func(t *testing.T) {
			t.Parallel()
			lvls, want := busyLevels(t, mode, uint64(10+i), 5, 20)
			r := rand.New(rand.NewPCG(uint64(i), 10))
			for j, lvl := range lvls {
				var blob []byte
				var res solver.Result
				var err error
				for resumes := 0; ; resumes++ {
					ctx, cancel := context.WithCancel(context.Background())
					var got []byte
					opts := solver.Options{
						CheckpointEvery: time.Nanosecond,
						Checkpoint: func(b []byte) {
							got = append(got[:0], b...)
							if r.IntN(4) == 0 {
								cancel()
							}
						},
						Resume: blob,
					}
					res, err = New().Solve(ctx, lvl, opts)
					cancel()
					if err == nil {
						break
					}
					if !errors.Is(err, context.Canceled) || res.Verdict != solver.Unknown || got == nil {
						t.Fatalf("%s: cancelled solve gave %v, %+v", lvl.Canonical(), err, res)
					}
					if err := New().Verify(lvl, res); err != nil {
						t.Fatalf("%s: partial result: %v", lvl.Canonical(), err)
					}
					blob = got
					if resumes > 10000 {
						t.Fatalf("%s: no end after 10000 resumes", lvl.Canonical())
					}
				}
				if err := New().Verify(lvl, res); err != nil {
					t.Fatal(err)
				}
				if blob != nil {
					sameResult(t, lvl, res, want[j])
				}
			}
		})
	}
}

func TestResumeRejectsForeignBlob(t *testing.T) {
	t.Parallel()
	lvls, _ := busyLevels(t, ModeHand, 0, 1, 40)
	var blob []byte
	opts := solver.Options{Budget: solver.Budget{MaxNodes: 5}, Checkpoint: func(b []byte) { blob = append(blob[:0], b...) }}
	solve(t, lvls[0], opts)
	if blob == nil {
		t.Fatal("no checkpoint")
	}
	ammo := level(t, "AB", "", "AABB", ModeAmmo)
	if _, err := New().Solve(context.Background(), ammo, solver.Options{Resume: blob}); err == nil {
		t.Fatal("an ammo search accepted a hand-mode blob")
	}
	bad := append(append([]byte(nil), blob...), 0xff)
	if _, err := New().Solve(context.Background(), lvls[0], solver.Options{Resume: bad}); err == nil {
		t.Fatal("accepted a blob with trailing bytes")
	}
}
