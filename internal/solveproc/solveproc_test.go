package solveproc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/puzzled/puzzled/internal/waittest"
	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/columns"
	"github.com/puzzled/puzzled/solver/kinds"
	"github.com/puzzled/puzzled/solver/sheep"
)

// The test binary is its own child: with childEnv set it serves solves.
const childEnv = "SOLVEPROC_TEST_CHILD"

// priorityEnv is the priority of the child, "idle" or a niceness.
const priorityEnv = "SOLVEPROC_TEST_PRIORITY"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		prio, err := ParsePriority(os.Getenv(priorityEnv))
		if err == nil {
			err = SetPriority(prio)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if err := Serve(context.Background(), os.Stdin, os.Stdout, testRegistry(), slog.New(slog.DiscardHandler)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// testRegistry is every real kind plus the test kinds below.
func testRegistry() *solver.Registry {
	real := kinds.Registry()
	var ks []solver.Kind
	for _, name := range real.Names() {
		k, _ := real.Kind(name)
		ks = append(ks, k)
	}
	return solver.NewRegistry(append(ks, spinKind{}, liarKind{}, exitKind{}, deafKind{}, hogKind{})...)
}

func newPool(t *testing.T, killAfter time.Duration) *Pool {
	return newPoolAt(t, killAfter, "idle")
}

func newPoolAt(t *testing.T, killAfter time.Duration, priority string) *Pool {
	t.Helper()
	p := NewPool(PoolConfig{KillAfter: killAfter, Command: func() *exec.Cmd {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), childEnv+"=1", priorityEnv+"="+priority)
		cmd.Stderr = os.Stderr
		return cmd
	}})
	t.Cleanup(func() { p.Close(10 * time.Second) })
	return p
}

// children returns the pids of the pool's children.
func (p *Pool) pids() []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []int
	for c := range p.all {
		out = append(out, c.cmd.Process.Pid)
	}
	return out
}

// TestPoolMatchesRun: a solve in a child gives what the same solve in this
// process gives (elapsed time aside), difficulty figures included, for
// levels of every real kind.
func TestPoolMatchesRun(t *testing.T) {
	reg := testRegistry()
	p := newPool(t, time.Minute)
	rng := rand.New(rand.NewPCG(7, 11))
	var reqs []Request
	for i := range 12 {
		vals := make([]int, 2+rng.IntN(30))
		for j := range vals {
			vals[j] = rng.IntN(100)
		}
		b, _ := json.Marshal(map[string]any{"kind": "twoends", "values": vals})
		reqs = append(reqs, Request{Kind: "twoends", Level: b, Playouts: 40 * (i % 2)})
	}
	for _, z := range []string{
		`{"kind":"zuma","board":"WWRRBBWW","hand":"WRBRW"}`,
		`{"kind":"zuma","board":"RRWWRRBBRR"}`,
		`{"kind":"zuma","board":"RBBRRGGBBR","hand":"GB"}`,
	} {
		reqs = append(reqs, Request{Kind: "zuma", Level: []byte(z), Playouts: 30})
	}
	for range 4 {
		g, err := sheep.Generate(rng, sheep.GenerateOpts{Tiles: 45, Layers: 4, Types: 5, Slots: 7})
		if err != nil {
			t.Fatal(err)
		}
		reqs = append(reqs, Request{Kind: "sheep", Level: g.Level.Canonical(), Playouts: 30, PlayoutWorkers: 2})
	}
	for range 3 {
		l, err := columns.Generate(rng, columns.GenConfig{Width: 4, Height: 6, Rule: columns.RuleLines, Colors: 3,
			Fill: 0.3, Pieces: 5, Goal: "score"})
		if err != nil {
			t.Fatal(err)
		}
		reqs = append(reqs, Request{Kind: "columns", Level: l.Canonical(), Playouts: 20})
	}
	ctx := context.Background()
	rated := map[string]int{}
	for i, req := range reqs {
		req.JobID = int64(i)
		want, werr := Run(ctx, reg, req, nil, slog.New(slog.DiscardHandler))
		got, gerr := p.Solve(ctx, req, nil)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("level %d (%s): error %v in a child, %v here", i, req.Level, gerr, werr)
		}
		if g, w := comparable(t, got), comparable(t, want); g != w {
			t.Errorf("level %d (%s):\nchild %s\nhere  %s", i, req.Level, g, w)
		}
		if len(got.Difficulty) > 0 {
			rated[req.Kind]++
		}
	}
	// The comparison covers the figures only where some were made.
	for _, k := range []string{"twoends", "zuma", "sheep", "columns"} {
		if rated[k] == 0 {
			t.Errorf("no %s level got difficulty figures: the test proves nothing about them", k)
		}
	}
	if n := len(p.pids()); n != 1 {
		t.Errorf("%d children for solves one after another, want 1 (reused)", n)
	}
}

// comparable is a result's JSON without its elapsed time.
func comparable(t *testing.T, r solver.Result) string {
	t.Helper()
	r.Stats.ElapsedMS = 0
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	// Details decoded in the parent hold json.Number where the child had
	// ints; both encode the same.
	return string(b)
}

// TestPoolCheckpointsCancelResume: checkpoints reach the parent while the
// child searches; a cancel stops the search with its partial result and
// leaves the child in the pool; the search resumes from the last
// checkpoint, its node count going on.
func TestPoolCheckpointsCancelResume(t *testing.T) {
	p := newPool(t, time.Minute) // a kill would fail the "same child" check
	ctx, cancel := context.WithCancel(context.Background())
	var last []byte
	var seen int
	req := Request{Kind: "spin", Level: []byte(`{"n":0}`), CheckpointEvery: 10 * time.Millisecond}
	res, err := p.Solve(ctx, req, func(b []byte) {
		last = append(last[:0], b...)
		if seen++; seen == 3 {
			cancel()
		}
	})
	if err == nil || errors.Is(err, ErrFinal) || res.Verdict != solver.Unknown {
		t.Fatalf("canceled solve: %+v, %v; want unknown and a search error", res, err)
	}
	if seen < 3 || res.Stats.Nodes < spinNodes(t, last) {
		t.Fatalf("%d checkpoints, %d nodes, last checkpoint at %d", seen, res.Stats.Nodes, spinNodes(t, last))
	}
	first := p.pids()
	from := spinNodes(t, last)
	req = Request{Kind: "spin", Level: []byte(fmt.Sprintf(`{"n":%d}`, from+5000)), Resume: last}
	res, err = p.Solve(context.Background(), req, nil)
	if err != nil || res.Verdict != solver.Solved || res.Stats.Nodes != from+5000 || !res.Stats.Resumed {
		t.Fatalf("resumed solve: %+v, %v; want solved at %d nodes, resumed", res, err, from+5000)
	}
	if again := p.pids(); len(first) != 1 || len(again) != 1 || first[0] != again[0] {
		t.Fatalf("children %v then %v: the canceled child should have been reused", first, again)
	}
}

// TestPoolErrors: a failure that a retry cannot fix is ErrFinal from a
// child as from Run, and the child stays; a child that dies fails only
// its solve (not ErrFinal: the job is retried) and is replaced.
func TestPoolErrors(t *testing.T) {
	p := newPool(t, time.Minute)
	ctx := context.Background()
	for _, req := range []Request{
		{Kind: "liar", Level: []byte(`{}`)},
		{Kind: "nosuch", Level: []byte(`{}`)},
		{Kind: "twoends", Level: []byte(`{"kind":"twoends","values":"x"}`)},
	} {
		_, err := p.Solve(ctx, req, nil)
		_, here := Run(ctx, testRegistry(), req, nil, slog.New(slog.DiscardHandler))
		if !errors.Is(err, ErrFinal) || !errors.Is(here, ErrFinal) || err.Error() != here.Error() {
			t.Errorf("%s: %v from a child, %v here; want the same ErrFinal", req.Kind, err, here)
		}
	}
	before := p.pids()
	_, err := p.Solve(ctx, Request{Kind: "exit", Level: []byte(`{}`)}, nil)
	if err == nil || errors.Is(err, ErrFinal) || !errors.Is(err, errChildLost) {
		t.Fatalf("child exited mid-solve: %v; want a lost child, not final", err)
	}
	t.Log(err)
	res, err := p.Solve(ctx, Request{Kind: "spin", Level: []byte(`{"n":100}`)}, nil)
	if err != nil || res.Verdict != solver.Solved {
		t.Fatalf("solve after a child died: %+v, %v", res, err)
	}
	after := p.pids()
	if len(before) != 1 || len(after) != 1 || before[0] == after[0] {
		t.Fatalf("children %v then %v: want the dead one replaced", before, after)
	}

	// An idle child killed from outside (the OOM killer) is replaced too.
	if err := syscall.Kill(after[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	res, err = p.Solve(ctx, Request{Kind: "spin", Level: []byte(`{"n":100}`)}, nil)
	if err != nil || res.Verdict != solver.Solved {
		t.Fatalf("solve after an idle child was killed: %+v, %v", res, err)
	}
}

// TestPoolKillsADeafChild: a child that does not answer a cancel is killed
// after KillAfter and replaced.
func TestPoolKillsADeafChild(t *testing.T) {
	p := newPool(t, 200*time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := p.Solve(ctx, Request{Kind: "deaf", Level: []byte(`{}`)}, nil)
	if !errors.Is(err, errChildLost) {
		t.Fatalf("deaf child: %v, want it lost", err)
	}
	if res, err := p.Solve(context.Background(), Request{Kind: "spin", Level: []byte(`{"n":10}`)}, nil); err != nil || res.Verdict != solver.Solved {
		t.Fatalf("solve after the kill: %+v, %v", res, err)
	}
}

// TestCancelRightBehindItsSolve: a cancel frame that arrives together
// with its solve frame ends that solve. (Serve once registered a solve
// only when its loop took it from the reader, so a cancel read in between
// was dropped and the search ran on until the parent killed the child.)
func TestCancelRightBehindItsSolve(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- Serve(context.Background(), inR, outW, testRegistry(), slog.New(slog.DiscardHandler))
	}()
	frames := make(chan header)
	go func() {
		defer close(frames)
		r := bufio.NewReader(outR)
		for {
			h, _, err := readFrame(r)
			if err != nil {
				return
			}
			frames <- h
		}
	}()
	// Both frames in one write, so the reader has the cancel as soon as
	// it has the solve.
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	for seq := uint64(1); seq <= 200; seq++ {
		buf.Reset()
		if err := writeFrame(w, header{Op: opSolve, Seq: seq, Request: &Request{Kind: "spin"}}, []byte(`{"n":0}`), nil); err != nil {
			t.Fatal(err)
		}
		if err := writeFrame(w, header{Op: opCancel, Seq: seq}); err != nil {
			t.Fatal(err)
		}
		if _, err := inW.Write(buf.Bytes()); err != nil {
			t.Fatal(err)
		}
		for done := false; !done; {
			select {
			case h, ok := <-frames:
				if !ok {
					t.Fatalf("solve %d: the child stopped writing: %v", seq, <-served)
				}
				done = h.Op == opDone && h.Seq == seq
			case <-time.After(time.Minute):
				t.Fatalf("solve %d still searching a minute after its cancel", seq)
			}
		}
	}
	inW.Close()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
}

// TestChildEndsWithItsParent: when its stdin closes (the parent died or
// closed the pool) a child stops its search and exits.
func TestChildEndsWithItsParent(t *testing.T) {
	p := newPool(t, time.Minute)
	c, err := p.get()
	if err != nil {
		t.Fatal(err)
	}
	c.seq++
	if err := c.send(header{Op: opSolve, Seq: c.seq, Request: &Request{Kind: "spin"}}, []byte(`{"n":0}`), nil); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // let it search
	_ = c.in.Close()
	select {
	case <-c.exited:
		if c.err != nil {
			t.Fatalf("child exit: %v, want a clean exit", c.err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("child still running 30 s after its stdin closed")
	}
}

// TestChildThreadsRunAtItsPriority: every thread of a child that has
// searched runs at the priority it was given (SCHED_IDLE, or a niceness),
// while the parent keeps the normal one.
func TestChildThreadsRunAtItsPriority(t *testing.T) {
	const schedIdle = 5 // SCHED_IDLE in field 41 (policy) of /proc/…/stat
	for _, tc := range []struct {
		priority     string
		policy, nice int
	}{
		{"idle", schedIdle, -1}, // niceness means nothing under SCHED_IDLE
		{"10", 0, 10},
	} {
		t.Run(tc.priority, func(t *testing.T) {
			p := newPoolAt(t, time.Minute, tc.priority)
			if _, err := p.Solve(context.Background(), Request{Kind: "spin", Level: []byte(`{"n":2000000}`)}, nil); err != nil {
				t.Fatal(err)
			}
			pid := p.pids()[0]
			tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
			if err != nil {
				t.Fatal(err)
			}
			for _, task := range tasks {
				if policy, nice := threadSched(t, pid, task.Name()); policy != tc.policy || (tc.nice >= 0 && nice != tc.nice) {
					t.Errorf("thread %s of child %d: policy %d niceness %d, want %d and %d", task.Name(), pid, policy, nice, tc.policy, tc.nice)
				}
			}
			if policy, nice := threadSched(t, os.Getpid(), strconv.Itoa(os.Getpid())); policy != 0 || (tc.nice >= 0 && nice == tc.nice) {
				t.Errorf("the parent runs at policy %d niceness %d: the test proves nothing", policy, nice)
			}
			t.Logf("%d threads of the child at policy %d, niceness %d", len(tasks), tc.policy, tc.nice)
		})
	}
}

// TestPausedChildrenHoldNoCPU: Pause stops every child, one started
// while paused included (state T, CPU time flat), Resume lets them search
// on, and a cancel after the pause ends their solves.
func TestPausedChildrenHoldNoCPU(t *testing.T) {
	p := newPoolAt(t, time.Minute, "10")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 2)
	spin := func() {
		_, err := p.Solve(ctx, Request{Kind: "spin", Level: []byte(`{"n":0}`)}, nil)
		done <- err
	}
	waitChildren := func(n int) []int {
		t.Helper()
		for range 6000 {
			if pids := p.pids(); len(pids) == n && procCPU(t, pids[len(pids)-1]) >= 0 {
				return pids
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Fatalf("%d children, want %d", len(p.pids()), n)
		return nil
	}
	go spin()
	first := waitChildren(1)[0]
	waitCPU(t, first, procCPU(t, first))

	p.Pause()
	go spin() // the first child is busy: a second one starts, paused
	pids := waitChildren(2)
	before := map[int]int{}
	for _, pid := range pids {
		// SIGSTOP takes effect when the child next runs, which on a busy
		// machine may take a while.
		waittest.WaitFor(t, time.Minute, fmt.Sprintf("child %d to stop (state T)", pid), func() bool {
			return procState(t, pid) == "T"
		})
		before[pid] = procCPU(t, pid)
	}
	time.Sleep(300 * time.Millisecond)
	for _, pid := range pids {
		if c := procCPU(t, pid); c != before[pid] {
			t.Errorf("child %d used CPU while paused: %d ticks, then %d", pid, before[pid], c)
		}
	}

	p.Resume()
	for _, pid := range pids {
		waitCPU(t, pid, before[pid])
	}
	cancel()
	for range 2 {
		select {
		case err := <-done:
			if err == nil || errors.Is(err, ErrFinal) || errors.Is(err, errChildLost) {
				t.Errorf("canceled solve: %v, want the search's cancel error", err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("a solve did not end 30 s after its cancel")
		}
	}
}

// waitCPU waits until the process has used more CPU time than from.
func waitCPU(t *testing.T, pid, from int) {
	t.Helper()
	waittest.WaitFor(t, time.Minute, fmt.Sprintf("process %d to use CPU", pid), func() bool {
		return procCPU(t, pid) > from
	})
}

// procState is field 3 of /proc/pid/stat (R, S, T, …).
func procState(t *testing.T, pid int) string {
	return procStat(t, pid)[0]
}

// procCPU is utime+stime (fields 14 and 15) of /proc/pid/stat, in ticks.
func procCPU(t *testing.T, pid int) int {
	f := procStat(t, pid)
	u, err1 := strconv.Atoi(f[14-3])
	s, err2 := strconv.Atoi(f[15-3])
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	return u + s
}

// procStat is /proc/pid/stat from field 3 on.
func procStat(t *testing.T, pid int) []string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
}

// threadSched reads fields 41 (policy) and 19 (nice) of
// /proc/pid/task/tid/stat.
func threadSched(t *testing.T, pid int, tid string) (policy, nice int) {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/stat", pid, tid))
	if err != nil {
		t.Fatal(err)
	}
	// pid (comm) state ppid … : fields after the comm start at field 3.
	fields := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	nice, err1 := strconv.Atoi(fields[19-3])
	policy, err2 := strconv.Atoi(fields[41-3])
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	return policy, nice
}

// FuzzReadFrame: any bytes either fail to read or give a frame that
// writes back and reads again to the same frame; nothing panics.
func FuzzReadFrame(f *testing.F) {
	var buf bytes.Buffer
	_ = writeFrame(bufio.NewWriter(&buf), header{Op: opSolve, Seq: 3, Request: &Request{Kind: "twoends"}}, []byte(`{"values":[1]}`), nil)
	f.Add(buf.Bytes())
	f.Add([]byte{0, 0, 0, 2, '{', '}', 0, 0, 0, 0})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		h, blobs, err := readFrame(bufio.NewReader(bytes.NewReader(data)))
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := writeFrame(bufio.NewWriter(&out), h, blobs...); err != nil {
			t.Fatal(err)
		}
		h2, blobs2, err := readFrame(bufio.NewReader(bytes.NewReader(out.Bytes())))
		if err != nil {
			t.Fatalf("frame written back does not read: %v", err)
		}
		a, _ := json.Marshal(h)
		b, _ := json.Marshal(h2)
		if string(a) != string(b) || len(blobs) != len(blobs2) {
			t.Fatalf("frame changed: %s %d blobs, then %s %d", a, len(blobs), b, len(blobs2))
		}
		for i := range blobs {
			if string(blobs[i]) != string(blobs2[i]) {
				t.Fatalf("blob %d changed", i)
			}
		}
	})
}

// spinKind counts nodes up to the level's n (0: forever) and checkpoints
// the count. Its Details carry an integer beyond float64's exact range.
type spinKind struct{}

type spinLevel struct {
	n    int64
	body []byte
}

func (l *spinLevel) Kind() string      { return "spin" }
func (l *spinLevel) Canonical() []byte { return l.body }

func (spinKind) Name() string    { return "spin" }
func (spinKind) Version() string { return "spin/1" }
func (spinKind) Parse(data []byte) (solver.Level, error) {
	var v struct{ N int64 }
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	return &spinLevel{n: v.N, body: data}, nil
}

func (spinKind) Solve(ctx context.Context, lvl solver.Level, opts solver.Options) (solver.Result, error) {
	n := lvl.(*spinLevel).n
	var nodes int64
	res := solver.Result{Verdict: solver.Unknown}
	if opts.Resume != nil {
		nodes = int64(binary.BigEndian.Uint64(opts.Resume))
		res.Stats.Resumed = true
	}
	last := time.Now()
	for n == 0 || nodes < n {
		nodes++
		if nodes%1024 == 0 {
			if ctx.Err() != nil {
				res.Stats.Nodes = nodes
				return res, ctx.Err()
			}
			if opts.CheckpointEvery > 0 && time.Since(last) >= opts.CheckpointEvery {
				opts.Checkpoint(binary.BigEndian.AppendUint64(nil, uint64(nodes)))
				last = time.Now()
			}
		}
	}
	res.Verdict, res.Plan = solver.Solved, json.RawMessage(strconv.FormatInt(n, 10))
	res.Details = map[string]any{"big": int64(1<<60 + 1)}
	res.Stats.Nodes = nodes
	return res, nil
}

func (spinKind) Verify(lvl solver.Level, res solver.Result) error {
	if want := strconv.FormatInt(lvl.(*spinLevel).n, 10); string(res.Plan) != want {
		return fmt.Errorf("plan %s, want %s", res.Plan, want)
	}
	return nil
}

func spinNodes(t *testing.T, checkpoint []byte) int64 {
	t.Helper()
	if len(checkpoint) != 8 {
		t.Fatalf("checkpoint %x", checkpoint)
	}
	return int64(binary.BigEndian.Uint64(checkpoint))
}

// liarKind claims a win that its own replay rejects.
type liarKind struct{ spinKind }

func (liarKind) Name() string { return "liar" }
func (liarKind) Solve(context.Context, solver.Level, solver.Options) (solver.Result, error) {
	return solver.Result{Verdict: solver.Solved, Plan: json.RawMessage(`"nonsense"`)}, nil
}
func (liarKind) Verify(solver.Level, solver.Result) error { return errors.New("plan does not replay") }
func (liarKind) Parse(data []byte) (solver.Level, error)  { return &spinLevel{body: data}, nil }

// exitKind ends the process in the middle of a solve, as a crash would.
type exitKind struct{ liarKind }

func (exitKind) Name() string { return "exit" }
func (exitKind) Solve(context.Context, solver.Level, solver.Options) (solver.Result, error) {
	os.Exit(3)
	return solver.Result{}, nil
}

// hogKind holds n MB for 150 ms, as a long search holds its table.
type hogKind struct{ spinKind }

func (hogKind) Name() string { return "hog" }
func (hogKind) Solve(ctx context.Context, lvl solver.Level, opts solver.Options) (solver.Result, error) {
	table := make([]byte, lvl.(*spinLevel).n<<20)
	for i := range table {
		table[i] = byte(i)
	}
	time.Sleep(150 * time.Millisecond)
	res := solver.Result{Verdict: solver.Solved, Plan: json.RawMessage(strconv.FormatInt(lvl.(*spinLevel).n, 10))}
	res.Stats.Nodes = int64(table[len(table)-1])
	return res, nil
}

// deafKind ignores its context: a solver that breaks the contract.
type deafKind struct{ liarKind }

func (deafKind) Name() string { return "deaf" }
func (deafKind) Solve(context.Context, solver.Level, solver.Options) (solver.Result, error) {
	time.Sleep(time.Hour)
	return solver.Result{}, nil
}
