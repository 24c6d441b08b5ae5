package sheep

import (
	"bytes"
	"context"
	"encoding/binary"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/puzzled/puzzled/solver"
)

// TestCheckpointResume interrupts searches at random node counts (a small
// MaxNodes budget), resumes from the blob each time until a verdict, and
// compares with an uninterrupted run: same verdict, plan and details;
// node counts continue and Resumed is set. The tiny pass schedule makes
// most interruptions fall in limited passes and restarts, whose resume
// must be exact.
func TestCheckpointResume(t *testing.T) {
	t.Parallel()
	sched := tinySchedule
	rng := rand.New(rand.NewPCG(11, 3))
	var levels []*Level
	for len(levels) < 40 {
		levels = append(levels, mustParse(t, smallLevel(rng)))
	}
	for k := 1; k <= 12; k++ { // realistic levels that take a few hundred nodes or more
		g, err := Generate(rand.New(rand.NewPCG(uint64(k), 99)), GenerateOpts{Solvable: k%2 == 0})
		if err != nil {
			t.Fatal(err)
		}
		levels = append(levels, g.Level)
	}
	// A run that ends within the limited passes must resume exactly: same
	// node count, except one per resume (the Tick that ran out of budget
	// counts a node whose click is done after the resume).
	limited := sched.first + int64(sched.restarts)*sched.restart
	resumes, exact := 0, 0
	for k, l := range levels {
		full := solveVerifiedWith(t, l, solver.Options{Budget: solver.Budget{MaxNodes: 20_000}}, sched)
		if full.Verdict == solver.Unknown {
			continue // the last pass rebuilds its table on resume, so node counts differ
		}
		var blob []byte
		var last solver.Result
		levelResumes := int64(0)
		for round := 0; ; round++ {
			if round == 1000 {
				t.Fatalf("level %d: no verdict after %d resumes", k, round)
			}
			var got []byte
			opts := solver.Options{
				Budget:          solver.Budget{MaxNodes: 2 + rng.Int64N(1+full.Stats.Nodes/4)},
				CheckpointEvery: time.Nanosecond,
				Checkpoint:      func(b []byte) { got = append(got[:0], b...) },
				Resume:          blob,
			}
			if blob != nil {
				opts.Budget.MaxNodes += last.Stats.Nodes
			}
			res := solveVerifiedWith(t, l, opts, sched)
			if blob != nil {
				resumes++
				levelResumes++
				if !res.Stats.Resumed || res.Stats.Nodes < last.Stats.Nodes {
					t.Fatalf("level %d round %d: resumed %t, nodes %d after %d", k, round, res.Stats.Resumed, res.Stats.Nodes, last.Stats.Nodes)
				}
			}
			if res.Verdict != solver.Unknown {
				last = res
				break
			}
			if got == nil {
				t.Fatalf("level %d: unknown without a checkpoint", k)
			}
			blob, last = got, res
		}
		if last.Verdict != full.Verdict || !bytes.Equal(last.Plan, full.Plan) || last.Proof != full.Proof ||
			last.Details["cleared"] != full.Details["cleared"] {
			t.Fatalf("level %d: resumed %s %s %v, uninterrupted %s %s %v", k, last.Verdict, last.Plan, last.Details, full.Verdict, full.Plan, full.Details)
		}
		if full.Stats.Nodes <= limited && levelResumes > 0 {
			exact++
			if last.Stats.Nodes != full.Stats.Nodes+levelResumes {
				t.Fatalf("level %d: %d nodes over %d resumes, uninterrupted %d", k, last.Stats.Nodes, levelResumes, full.Stats.Nodes)
			}
		}
	}
	t.Logf("%d levels, %d resumes, %d levels resumed within limited passes", len(levels), resumes, exact)
	if resumes < 50 || exact < 10 {
		t.Fatalf("only %d resumes exercised, %d within limited passes", resumes, exact)
	}
}

// TestCancelCheckpoint cancels ctx from the Checkpoint hook and resumes.
// The run stays in limited passes, so the resumed run equals the
// uninterrupted one exactly, best line included.
func TestCancelCheckpoint(t *testing.T) {
	t.Parallel()
	l := hardLevel(t)
	full := solveVerified(t, l, solver.Options{Budget: solver.Budget{MaxNodes: 50_000}})
	ctx, cancel := context.WithCancel(context.Background())
	var blob []byte
	res, err := Solve(ctx, l, solver.Options{
		Budget:          solver.Budget{MaxNodes: 50_000},
		CheckpointEvery: time.Nanosecond,
		Checkpoint: func(b []byte) {
			if blob == nil {
				blob = append([]byte(nil), b...)
				cancel()
			}
		},
	})
	if err == nil || res.Verdict != solver.Unknown || blob == nil {
		t.Fatalf("cancel: err %v verdict %s blob %d bytes", err, res.Verdict, len(blob))
	}
	if err := Verify(l, res); err != nil {
		t.Fatal(err)
	}
	again := solveVerified(t, l, solver.Options{Budget: solver.Budget{MaxNodes: 50_000}, Resume: blob})
	if !again.Stats.Resumed || again.Verdict != full.Verdict || !bytes.Equal(again.Plan, full.Plan) ||
		again.Stats.Nodes != full.Stats.Nodes {
		t.Fatalf("resumed %s %s (%d nodes), want %s %s (%d nodes)", again.Verdict, again.Plan, again.Stats.Nodes, full.Verdict, full.Plan, full.Stats.Nodes)
	}
}

func TestResumeRejectsBadBlobs(t *testing.T) {
	t.Parallel()
	l := mustParse(t, smallLevel(rand.New(rand.NewPCG(1, 1))))
	other := mustParse(t, []byte(`{"kind":"sheep","tiles":[{"id":"a","type":1,"x":0,"y":0,"layer":0}]}`))
	s := newSearch(other, nil, scheduleFor(other))
	s.pushFrame()
	foreign := s.encode()
	s = newSearch(l, nil, scheduleFor(l))
	s.pushFrame()
	own := s.encode()
	damaged := append([]byte(nil), own...)
	damaged[len(damaged)-12] ^= 1
	// well-formed payloads of the versions before (version 12's deferred
	// set lacks the far beams, version 11's deferred
	// beams name sheep/14's beams, version 10's passes do
	// not cut above the endgame table, version 9's passes do
	// not cut at the endgame table, version 8's deferred
	// beams name sheep/9's beams, version 7's dead states are not grouped
	// by work, version 6 lacks the deferred beams)
	older := func(v byte) []byte {
		p := append([]byte{'S', 'H', v}, own[len(payloadMagic):len(own)-8]...)
		return binary.LittleEndian.AppendUint64(p, checksum(p))
	}
	envelope := func(p []byte) []byte {
		b := append(make([]byte, 20), p...)
		copy(b, "PZC1")
		return b
	}
	for _, b := range [][]byte{envelope(foreign), envelope(nil), envelope(damaged), envelope([]byte("SH\x02xxxxxxxxxxxxxxxx\xff")),
		envelope(older(6)), envelope(older(7)), envelope(older(8)), envelope(older(9)), envelope(older(10)), envelope(older(11)), envelope(older(12))} {
		if _, err := Solve(context.Background(), l, solver.Options{Resume: b}); err == nil {
			t.Fatalf("resume from %q accepted", b)
		}
	}
	if _, err := Solve(context.Background(), l, solver.Options{Resume: envelope(own)}); err != nil {
		t.Fatalf("own blob rejected: %v", err)
	}
}

// TestResumeLimitedPassesExact interrupts a hard level many times within
// its limited passes and checks that the chain of resumed runs ends in
// exactly the state of an uninterrupted run: the same checkpoint payload
// (pass, DFS path, best line, table) and node count, except one node per
// resume (the Tick that ran out of budget counts a node whose click is
// done after the resume). Where a limited pass stops depends on its
// transposition table, so this holds only if checkpoints carry the whole
// table of the pass.
func TestResumeLimitedPassesExact(t *testing.T) {
	t.Parallel()
	l := hardLevel(t)
	sched := schedule{first: 3000, restart: 9000, restarts: 30}
	const target = 30_000 // in pass 4, within the limited passes
	var fullBlob []byte
	full := solveVerifiedWith(t, l, solver.Options{
		Budget:          solver.Budget{MaxNodes: target},
		CheckpointEvery: time.Hour,
		Checkpoint:      func(b []byte) { fullBlob = append(fullBlob[:0], b...) },
	}, sched)
	if full.Verdict != solver.Unknown || fullBlob == nil {
		t.Fatalf("hard level %s within %d nodes", full.Verdict, target)
	}
	rng := rand.New(rand.NewPCG(4, 4))
	var blob []byte
	var last solver.Result
	resumes := int64(0)
	for final := false; !final; {
		budget := last.Stats.Nodes + 200 + rng.Int64N(2000)
		if blob != nil {
			resumes++
		}
		if budget >= target+resumes {
			budget, final = target+resumes, true
		}
		var got []byte
		res := solveVerifiedWith(t, l, solver.Options{
			Budget:          solver.Budget{MaxNodes: budget},
			CheckpointEvery: time.Hour, // only the final checkpoint at the stop
			Checkpoint:      func(b []byte) { got = append(got[:0], b...) },
			Resume:          blob,
		}, sched)
		if res.Verdict != solver.Unknown || got == nil {
			t.Fatalf("round %d: %s, checkpoint %t", resumes, res.Verdict, got != nil)
		}
		blob, last = got, res
	}
	if !bytes.Equal(last.Plan, full.Plan) || last.Stats.Nodes != full.Stats.Nodes+resumes {
		t.Fatalf("after %d resumes: %d nodes, best %s; uninterrupted %d nodes, best %s",
			resumes, last.Stats.Nodes, last.Plan, full.Stats.Nodes, full.Plan)
	}
	if !bytes.Equal(solver.CheckpointPayload(blob), solver.CheckpointPayload(fullBlob)) { // past the envelope (nodes, time)
		t.Fatalf("after %d resumes the search state differs from the uninterrupted one", resumes)
	}
	if resumes < 10 {
		t.Fatalf("only %d resumes", resumes)
	}
}

// TestUnlimitedPassCheckpointKeepsMore: the difference code keeps several
// times the dead states that the bitsets of version 2 kept in the same
// savedDeadBytes, and the blob stays within that bound.
func TestUnlimitedPassCheckpointKeepsMore(t *testing.T) {
	t.Parallel()
	l := hardLevel(t)
	var blob []byte
	res := solveVerifiedWith(t, l, solver.Options{
		Budget:          solver.Budget{MaxNodes: 400_000},
		CheckpointEvery: time.Hour,
		Checkpoint:      func(b []byte) { blob = append(blob[:0], b...) },
	}, schedule{})
	if res.Verdict != solver.Unknown || blob == nil {
		t.Fatalf("hard level %s", res.Verdict)
	}
	m, _ := solver.NewMeter(t.Context(), solver.Options{})
	s := newSearch(l, m, schedule{})
	if err := s.resume(solver.CheckpointPayload(blob)); err != nil {
		t.Fatal(err)
	}
	v2 := savedDeadBytes / (8 * s.dead.w)
	t.Logf("blob %d bytes, %d dead states restored (version 2 kept %d)", len(blob), s.dead.len(), v2)
	if s.dead.len() < 3*v2 || len(blob) > savedDeadBytes+64<<10 {
		t.Fatalf("blob %d bytes restores %d dead states, version 2 kept %d", len(blob), s.dead.len(), v2)
	}
}

// TestResumeRejectsVersion2: a sheep/2 or sheep/3 payload (magic "SH\x02",
// "SH\x03") is rejected cleanly, so the worker starts the search afresh.
func TestResumeRejectsVersion2(t *testing.T) {
	t.Parallel()
	l := hardLevel(t)
	var blob []byte
	solveVerified(t, l, solver.Options{
		Budget:          solver.Budget{MaxNodes: 5000},
		CheckpointEvery: time.Hour,
		Checkpoint:      func(b []byte) { blob = append(blob[:0], b...) },
	})
	for _, v := range []byte{0x02, 0x03} {
		old := append([]byte(nil), blob...)
		old[len(old)-len(solver.CheckpointPayload(old))+2] = v // the payload's version byte
		_, err := Solve(t.Context(), l, solver.Options{Resume: old})
		if err == nil || !strings.Contains(err.Error(), "unknown version") {
			t.Fatalf("version %d payload: err %v", v, err)
		}
	}
}

// TestLimitedPassCheckpointSmall: a checkpoint at the end of the first
// limited pass of a 300-tile level holds its whole table (up to 32,768
// states, 1.3 MB as version 2's bitsets) in far fewer bytes.
func TestLimitedPassCheckpointSmall(t *testing.T) {
	t.Parallel()
	g, err := Generate(rand.New(rand.NewPCG(1, 99)), GenerateOpts{Tiles: 300, Slots: 4})
	if err != nil {
		t.Fatal(err)
	}
	l := g.Level
	var blob []byte
	res := solveVerified(t, l, solver.Options{
		Budget:          solver.Budget{MaxNodes: restartSchedule.first},
		CheckpointEvery: time.Hour,
		Checkpoint:      func(b []byte) { blob = append(blob[:0], b...) },
	})
	if res.Verdict != solver.Unknown || blob == nil {
		t.Fatalf("300-tile level %s within the first pass", res.Verdict)
	}
	m, _ := solver.NewMeter(t.Context(), solver.Options{})
	s := newSearch(l, m, restartSchedule)
	if err := s.resume(solver.CheckpointPayload(blob)); err != nil {
		t.Fatal(err)
	}
	v2 := s.dead.len() * 8 * s.dead.w
	t.Logf("blob %d bytes for %d dead states (version 2: %d bytes of bitsets)", len(blob), s.dead.len(), v2)
	if s.dead.len() < 1000 || 3*len(blob) > v2 {
		t.Fatalf("blob %d bytes for %d dead states, version 2 %d", len(blob), s.dead.len(), v2)
	}
}

// TestResumeInEveryPhase interrupts a search at every node of a level
// that goes through all phases (pass 0, projections until every subset is
// tried, beams with one deferred, restarts, and the unlimited pass that
// runs the deferred beam and exhausts the level) and resumes it from its
// last checkpoint: every payload is accepted, and the resumed search ends
// with the uninterrupted verdict. Payloads written after the projection
// phase had tried every subset were once rejected ("bad projection
// subset"), so the worker started such searches afresh.
func TestResumeInEveryPhase(t *testing.T) {
	t.Parallel()
	l := everyPhaseLevel(t)
	full := solveVerifiedWith(t, l, solver.Options{}, resumeFuzzSchedule)
	if full.Verdict != solver.Unsolvable || full.Stats.Nodes < 1000 {
		t.Fatalf("the level no longer goes through every phase: %s in %d nodes", full.Verdict, full.Stats.Nodes)
	}
	for nodes := int64(1); nodes < full.Stats.Nodes; nodes++ {
		var got []byte
		opts := solver.Options{Budget: solver.Budget{MaxNodes: nodes}, CheckpointEvery: time.Nanosecond,
			Checkpoint: func(b []byte) { got = append(got[:0], b...) }}
		first := solveVerifiedWith(t, l, opts, resumeFuzzSchedule)
		if first.Verdict != solver.Unknown || got == nil {
			t.Fatalf("at %d nodes: %s, checkpoint %t", nodes, first.Verdict, got != nil)
		}
		res, err := solveWith(context.Background(), l, solver.Options{Resume: got}, resumeFuzzSchedule)
		if err != nil {
			t.Fatalf("checkpoint at %d nodes: %v", nodes, err)
		}
		if res.Verdict != full.Verdict || !res.Stats.Resumed {
			t.Fatalf("checkpoint at %d nodes: resumed to %s, uninterrupted %s", nodes, res.Verdict, full.Verdict)
		}
	}
}

// TestCheckpointKeepsCostliestDead: a checkpoint of the unlimited pass
// whose table does not fit keeps the states whose proofs took the most
// nodes: every state of a work class above the cheapest class written is
// restored, with its class's least work; nothing is restored that was not
// in the table; a budget that fits the table keeps all of it.
func TestCheckpointKeepsCostliestDead(t *testing.T) {
	t.Parallel()
	l := hardLevel(t)
	rng := rand.New(rand.NewPCG(7, 7))
	s := newSearch(l, nil, schedule{})
	s.dead = newDeadTableMax(len(l.tiles), 2000) // full after 2,000: evicts
	n := len(l.tiles)
	work := map[uint64]int64{}
	key := make([]uint64, s.dead.w)
	for range 3000 {
		clear(key)
		h := uint64(0)
		for i := range n {
			if rng.IntN(4) == 0 {
				key[i/64] |= 1 << (i % 64)
				h ^= s.b.zob[i]
			}
		}
		w := int64(1)<<rng.IntN(20) + rng.Int64N(1000)
		if s.dead.contains(h, key) {
			continue
		}
		s.dead.add(h, key, w)
		work[h] = w
	}
	for _, budget := range []int{4 << 10, 32 << 10, 1 << 20} {
		enc := s.appendDead(nil, budget)
		if len(enc) > budget {
			t.Fatalf("budget %d: %d bytes written", budget, len(enc))
		}
		r := newSearch(l, nil, schedule{})
		pr := payloadReader{b: enc}
		if err := r.resumeDead(&pr); err != nil || len(pr.b) != 0 {
			t.Fatalf("budget %d: %v, %d bytes left", budget, err, len(pr.b))
		}
		d, low := r.dead, workClasses
		for e := range d.len() {
			w, ok := work[d.hashs[e]]
			if !ok || !s.dead.contains(d.hashs[e], d.keys[e*d.w:(e+1)*d.w]) {
				t.Fatalf("budget %d: restored a state that was not in the table", budget)
			}
			if got, want := int64(d.work[e]), classWork(workClass(uint32(w))); got != want {
				t.Fatalf("budget %d: restored work %d for a state of work %d (want %d)", budget, got, w, want)
			}
			low = min(low, workClass(uint32(w)))
		}
		above := 0
		for e := range s.dead.len() {
			if workClass(s.dead.work[e]) > low {
				above++
			}
		}
		kept := 0
		for e := range d.len() {
			if workClass(d.work[e]) > low {
				kept++
			}
		}
		t.Logf("budget %d: %d of %d states kept, classes from %d; %d of the %d above", budget, d.len(), s.dead.len(), low, kept, above)
		if kept != above || (budget == 1<<20 && d.len() != s.dead.len()) {
			t.Fatalf("budget %d: %d of the %d states above class %d kept, %d of %d in all", budget, kept, above, low, d.len(), s.dead.len())
		}
	}
}
