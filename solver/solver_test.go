package solver_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/puzzled/puzzled/solver"
)

func TestMeterNodeBudget(t *testing.T) {
	m, err := solver.NewMeter(context.Background(), solver.Options{Budget: solver.Budget{MaxNodes: 10}})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for !m.Tick() {
		n++
	}
	if n != 9 || m.Nodes() != 10 || !errors.Is(m.StopReason(), solver.ErrBudget) || m.Err() != nil {
		t.Fatalf("stopped after %d ticks, %d nodes, reason %v, err %v", n, m.Nodes(), m.StopReason(), m.Err())
	}
	if !m.Tick() {
		t.Fatal("a stopped meter must stay stopped")
	}
}

func TestMeterCancelIsAnError(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	m, _ := solver.NewMeter(ctx, solver.Options{})
	cancel()
	for range 2048 { // the clock and ctx are checked every 1024 nodes
		if m.Tick() {
			break
		}
	}
	if !errors.Is(m.Err(), context.Canceled) {
		t.Fatalf("Err = %v, want context.Canceled", m.Err())
	}
}

func TestMeterTimeBudgetCountsEarlierAttempts(t *testing.T) {
	var blob []byte
	m, _ := solver.NewMeter(context.Background(), solver.Options{
		CheckpointEvery: time.Nanosecond,
		Checkpoint:      func(b []byte) { blob = append([]byte(nil), b...) },
	})
	for range 5 {
		m.Tick()
	}
	time.Sleep(30 * time.Millisecond)
	if !m.CheckpointDue() {
		t.Fatal("checkpoint not due")
	}
	m.Checkpoint([]byte("payload"))
	if solver.CheckpointNodes(blob) != 5 {
		t.Fatalf("envelope nodes = %d", solver.CheckpointNodes(blob))
	}
	// Resumed with a 20 ms budget: the 30 ms already spent exhaust it.
	r, err := solver.NewMeter(context.Background(), solver.Options{Resume: blob, Budget: solver.Budget{MaxMS: 20}})
	if err != nil {
		t.Fatal(err)
	}
	if string(r.Resumed()) != "payload" || r.Nodes() != 5 || !r.Stopped() || !r.Stats(0).Resumed {
		t.Fatalf("resumed: payload %q nodes %d stopped %v", r.Resumed(), r.Nodes(), r.Stopped())
	}
	if _, err := solver.NewMeter(context.Background(), solver.Options{Resume: []byte("junk")}); err == nil {
		t.Fatal("a junk resume blob was accepted")
	}
}

func TestNoCheckpointWithoutHook(t *testing.T) {
	m, _ := solver.NewMeter(context.Background(), solver.Options{CheckpointEvery: time.Nanosecond})
	if m.CheckpointDue() {
		t.Fatal("due without a hook")
	}
}

type fakeKind struct{ name string }

func (k fakeKind) Name() string                     { return k.name }
func (fakeKind) Version() string                    { return "1" }
func (fakeKind) Parse([]byte) (solver.Level, error) { return nil, solver.Errorf("x", "parsed") }
func (fakeKind) Solve(context.Context, solver.Level, solver.Options) (solver.Result, error) {
	return solver.Result{}, nil
}
func (fakeKind) Verify(solver.Level, solver.Result) error { return nil }

func TestRegistryParseErrorsNameTheField(t *testing.T) {
	reg := solver.NewRegistry(fakeKind{"a"}, fakeKind{"b"})
	for _, c := range []struct{ in, field string }{
		{`{"kind":"c"}`, "kind"},
		{`{"values":[1]}`, "kind"},
		{`{"kind":5}`, "kind"},
		{`[1]`, "(level)"},
		{`{"kind":"a"}`, "x"}, // handed to the kind
		{`{"kind":`, ""},
	} {
		_, err := reg.Parse([]byte(c.in))
		var fe *solver.FieldError
		if !errors.As(err, &fe) || fe.Field != c.field {
			t.Errorf("Parse(%s) = %v, want a field error on %q", c.in, err, c.field)
		}
	}
	if got := reg.Names(); len(got) != 2 || got[0] != "a" {
		t.Fatalf("Names = %v", got)
	}
}

func TestDecodeStrict(t *testing.T) {
	var v struct {
		Board string `json:"board"`
	}
	for _, c := range []struct{ in, field string }{
		{`{"board":"RG","hand":"R"}`, "hand"},
		{`{"board":5}`, "board"},
		{`{"board":"R"} {}`, ""},
	} {
		err := solver.DecodeStrict([]byte(c.in), &v)
		var fe *solver.FieldError
		if !errors.As(err, &fe) || fe.Field != c.field {
			t.Errorf("DecodeStrict(%s) = %v, want a field error on %q", c.in, err, c.field)
		}
	}
	if !solver.Solved.Definitive() || !solver.Unsolvable.Definitive() || solver.Unknown.Definitive() {
		t.Fatal("Definitive")
	}
}

func TestDetailInt(t *testing.T) {
	for _, c := range []struct {
		in   any
		want int64
		ok   bool
	}{
		{7, 7, true},
		{int64(-3), -3, true},
		{float64(12), 12, true},
		{12.5, 0, false},
		{1e300, 0, false},
		{json.Number("42"), 42, true},
		{json.Number("4.2"), 0, false},
		{"7", 0, false},
		{nil, 0, false},
	} {
		got, ok := solver.DetailInt(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("DetailInt(%#v) = %d, %v; want %d, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

// slowTicks ticks m with a pause before each node, as a search whose nodes
// cost milliseconds, until it stops or limit nodes; it returns the count.
func slowTicks(m *solver.Meter, pause time.Duration, limit int) int {
	for n := 1; n <= limit; n++ {
		time.Sleep(pause)
		if m.Tick() {
			return n
		}
	}
	return limit
}

// Slow nodes: the meter must not wait for a node count to look at the
// clock. Before the alarm it looked every 1024 nodes, so these searches ran
// 1024 nodes (3 s) past a 30 ms budget.
func TestMeterTimeBudgetStopsSlowNodesWithinAFewNodes(t *testing.T) {
	m, _ := solver.NewMeter(context.Background(), solver.Options{Budget: solver.Budget{MaxMS: 30}})
	n := slowTicks(m, 3*time.Millisecond, 1024)
	if n >= 100 || !errors.Is(m.StopReason(), solver.ErrBudget) {
		t.Fatalf("stopped after %d nodes of 3 ms (reason %v); a 30 ms budget allows about 10", n, m.StopReason())
	}
}

func TestMeterCancelStopsSlowNodesWithinAFewNodes(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	m, _ := solver.NewMeter(ctx, solver.Options{})
	slowTicks(m, time.Millisecond, 3) // running
	cancel()
	n := slowTicks(m, 3*time.Millisecond, 1024)
	if n >= 100 || !errors.Is(m.Err(), context.Canceled) {
		t.Fatalf("stopped %d nodes after the cancel (err %v)", n, m.Err())
	}
}

// A resumed search has used part of its time budget already: the alarm
// rings for what is left.
func TestMeterAlarmCountsResumedTime(t *testing.T) {
	var blob []byte
	first, _ := solver.NewMeter(context.Background(), solver.Options{
		Checkpoint: func(b []byte) { blob = append([]byte(nil), b...) },
	})
	time.Sleep(40 * time.Millisecond)
	first.Checkpoint(nil)
	m, err := solver.NewMeter(context.Background(), solver.Options{Budget: solver.Budget{MaxMS: 50}, Resume: blob})
	if err != nil {
		t.Fatal(err)
	}
	if n := slowTicks(m, 3*time.Millisecond, 1024); n >= 100 {
		t.Fatalf("resumed with 40 of 50 ms used, stopped after %d nodes of 3 ms", n)
	}
}

func TestCheckText(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, in string
		ok       bool
	}{
		{"plain", "tile-7", true},
		{"unicode", "羊-ü-🐑", true},
		{"empty", "", true},
		{"nul", "a\x00b", false},
		{"invalid utf-8", "a\xffb", false},
		{"decoded lone surrogate", decodeString(t, `"a\ud800b"`), false},
		{"decoded invalid byte", decodeString(t, "\"a\xc3\""), false},
		{"decoded pair", decodeString(t, `"\ud83d\udc11"`), true},
	} {
		err := solver.CheckText("labels.k", c.in)
		if (err == nil) != c.ok {
			t.Errorf("%s: CheckText(%q) = %v, want ok=%v", c.name, c.in, err, c.ok)
		}
		var fe *solver.FieldError
		if err != nil && (!errors.As(err, &fe) || fe.Field != "labels.k") {
			t.Errorf("%s: error %v does not name the field", c.name, err)
		}
	}
}

func decodeString(t *testing.T, js string) string {
	t.Helper()
	var s string
	if err := json.Unmarshal([]byte(js), &s); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestDecodeStrictTypeReasons(t *testing.T) {
	t.Parallel()
	var v struct {
		MaxMS int64  `json:"max_ms"`
		Name  string `json:"name"`
	}
	for in, want := range map[string]string{
		`{"max_ms":1.5}`:  "max_ms: must be a number: an integer in range, got 1.5",
		`{"max_ms":"5"}`:  "max_ms: must be a number, got a string",
		`{"name":5}`:      "name: must be a string, got a number",
		`{"max_ms":1e99}`: "max_ms: must be a number: an integer in range, got 1e99",
	} {
		if err := solver.DecodeStrict([]byte(in), &v); err == nil || err.Error() != want {
			t.Errorf("DecodeStrict(%s) = %v, want %q", in, err, want)
		}
	}
}
