package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/puzzled/puzzled/api/wire"
	"github.com/puzzled/puzzled/solver"
)

func TestParseBand(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in       string
		want     string // String() of the band; "" for an error
		in1, out int    // a number inside and one outside
	}{
		{"3-7", "3-7", 5, 8},
		{"3-", "3-", 100, 2},
		{"-40", "-40", 40, 41},
		{"5", "5", 5, 6},
		{" 2 - 4 ", "2-4", 2, 1},
		{"7-3", "", 0, 0},
		{"-", "", 0, 0},
		{"a-b", "", 0, 0},
		{"-3-4", "", 0, 0},
		{"", "", 0, 0},
	} {
		b, err := parseBand(c.in)
		if c.want == "" {
			if err == nil {
				t.Errorf("parseBand(%q) = %v, want an error", c.in, b)
			}
			continue
		}
		if err != nil || b.String() != c.want || !b.contains(c.in1) || b.contains(c.out) {
			t.Errorf("parseBand(%q) = %v, %v; want %s containing %d and not %d", c.in, b, err, c.want, c.in1, c.out)
		}
	}
}

func TestParseExpectSpec(t *testing.T) {
	t.Parallel()
	seven := 7
	base := expectation{Verdict: expectSolvable, Score: &band{Max: &seven}}
	for _, c := range []struct {
		in, want string // want: expectation.String(), or "error"
	}{
		{"unsolvable", "unsolvable"},
		{"  unsolvable\n", "unsolvable"},
		{`"decided"`, "decided, score -7"},
		{`{"verdict":"solvable","plan":"-40"}`, "solvable, score -7, plan -40 moves"},
		{`{"score":"3-5"}`, "solvable, score 3-5"},
		{`{"verdict":"maybe"}`, "error"},
		{`{"verdcit":"unsolvable"}`, "error"},
		{`{"score":"9-1"}`, "error"},
		{"solved", "error"},
		{"", "error"},
	} {
		got, err := parseExpectSpec([]byte(c.in), base)
		switch {
		case c.want == "error" && err == nil:
			t.Errorf("%q: got %s, want an error", c.in, got)
		case c.want != "error" && (err != nil || got.String() != c.want):
			t.Errorf("%q: got %s, %v; want %s", c.in, got, err, c.want)
		}
	}
}

func TestUnwrapExpect(t *testing.T) {
	t.Parallel()
	lvl, exp, err := unwrapExpect([]byte(`{"level":{"kind":"zuma","board":"RRBB","hand":"R"},"expect":"unsolvable","labels":{"a":"b"}}`))
	if err != nil || string(lvl) != `{"kind":"zuma","board":"RRBB","hand":"R"}` || string(exp) != `"unsolvable"` {
		t.Fatalf("wrapped: %s %s %v", lvl, exp, err)
	}
	plain := `{"kind":"zuma","board":"RRBB","hand":"R","expect":"x"}` // a level's own field, left to the parser
	if lvl, exp, err := unwrapExpect([]byte(plain)); err != nil || string(lvl) != plain || exp != nil {
		t.Fatalf("plain: %s %s %v", lvl, exp, err)
	}
	if _, _, err := unwrapExpect([]byte(`{"level":{},"expect":"unsolvable","why":"x"}`)); err == nil {
		t.Fatal("an unknown field of the wrapper is accepted")
	}
}

func TestJudgeResult(t *testing.T) {
	t.Parallel()
	band := func(s string) *band {
		b, err := parseBand(s)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	solved := func(plan string, score int) *wire.Result {
		r := &wire.Result{Result: solver.Result{Verdict: solver.Solved, Plan: json.RawMessage(plan)}}
		if score > 0 {
			r.Difficulty = json.RawMessage(`{"playouts":10,"score":` + string(rune('0'+score)) + `}`)
		}
		return r
	}
	unsolvable := &wire.Result{Result: solver.Result{Verdict: solver.Unsolvable, Proof: "exhaustive"}}
	unknown := &wire.Result{Result: solver.Result{Verdict: solver.Unknown, Plan: json.RawMessage(`["a"]`)}}
	for _, c := range []struct {
		name   string
		exp    expectation
		res    *wire.Result
		reason string // "" when it passes
	}{
		{"solved as expected", expectation{Verdict: expectSolvable}, solved(`["a","b"]`, 0), ""},
		{"unsolvable, expected solvable", expectation{Verdict: expectSolvable}, unsolvable, "expected solvable, got unsolvable"},
		{"unknown, expected solvable", expectation{Verdict: expectSolvable}, unknown, "expected solvable, got unknown (no answer within the budget)"},
		{"unsolvable on purpose", expectation{Verdict: expectUnsolvable, Score: band("3-7")}, unsolvable, ""},
		{"solved, expected unsolvable", expectation{Verdict: expectUnsolvable}, solved(`[1]`, 0), "expected unsolvable, got solved"},
		{"decided: unsolvable", expectation{Verdict: expectDecided, Plan: band("-1")}, unsolvable, ""},
		{"decided: unknown", expectation{Verdict: expectDecided}, unknown, "expected decided, got unknown (no answer within the budget)"},
		{"score in band", expectation{Verdict: expectSolvable, Score: band("3-7")}, solved(`[1]`, 5), ""},
		{"score above", expectation{Verdict: expectSolvable, Score: band("3-4")}, solved(`[1]`, 5), "expected difficulty score 3-4, got 5"},
		{"no score", expectation{Verdict: expectSolvable, Score: band("3-")}, solved(`[1]`, 0), "expected difficulty score 3-, but the result has no score"},
		{"plan too long", expectation{Verdict: expectSolvable, Plan: band("-2")}, solved(`[1,2,3]`, 0), "expected a plan of -2 moves, got 3"},
		{"twoends line length", expectation{Verdict: expectSolvable, Plan: band("3")}, solved(`"LRL"`, 0), ""},
	} {
		out := judgeResult(c.exp, c.res)
		if out.ok != (c.reason == "") || !strings.HasPrefix(out.reason, c.reason) {
			t.Errorf("%s: ok %v reason %q; want %q", c.name, out.ok, out.reason, c.reason)
		}
	}
}

// validateJUnit checks a JUnit report against testdata/junit.xsd with
// xmllint (Debian's libxml2-utils; the test fails without it).
func validateJUnit(t *testing.T, path string) {
	t.Helper()
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		t.Fatalf("xmllint is needed to validate JUnit reports (apt-get install libxml2-utils): %v", err)
	}
	out, err := exec.Command(xmllint, "--noout", "--schema", filepath.Join("testdata", "junit.xsd"), path).CombinedOutput()
	if err != nil {
		data, _ := os.ReadFile(path)
		t.Fatalf("JUnit report does not validate: %v\n%s\n%s", err, out, data)
	}
}

func TestJUnitReportValidates(t *testing.T) {
	t.Parallel()
	one := 1
	rep := &checkReport{BatchID: 9, BatchURL: "http://h/ui/batches/9", started: time.Unix(1700000000, 0), ElapsedMS: 1234,
		Levels: []checkCase{
			{Name: "levels/ok.json", Kind: "zuma", Status: casePass, Verdict: "solved", JobID: 1, URL: "http://h/ui/jobs/1", ElapsedMS: 12},
			{Name: "levels/bad.json", Kind: "zuma", Status: caseFail, Verdict: "unsolvable", Proof: "exhaustive",
				Reason: `expected solvable, got unsolvable <&"'>`, Expect: "solvable", JobID: 2, URL: "http://h/ui/jobs/2"},
			{Name: "levels/many.ndjson:3", Kind: "twoends", Status: caseFail, Verdict: "solved", PlanLen: &one,
				BestLine: json.RawMessage(`"L\u0001"`), Reason: "expected a plan of -0 moves, got 1", JobID: 3, URL: "http://h/ui/jobs/3"},
			{Name: "levels/broken.json", Status: caseFail, Reason: "invalid level: board: run of 3"},
			{Name: "levels/failed.json", Kind: "sheep", Status: caseError, Reason: "job 5 ended failed without a verdict", JobID: 5},
		}}
	rep.tally()
	path := filepath.Join(t.TempDir(), "report.xml")
	if err := writeJUnitFile(path, "puzzled", rep); err != nil {
		t.Fatal(err)
	}
	validateJUnit(t, path)
	data, _ := os.ReadFile(path)
	for _, want := range []string{`tests="5" failures="3" errors="1"`, `<testcase name="levels/many.ndjson:3" classname="twoends"`,
		`<failure message="expected solvable, got unsolvable &lt;&amp;&#34;&#39;&gt;" type="unsolvable">`,
		"http://h/ui/jobs/2", `<error message="job 5 ended failed without a verdict" type="no-verdict">`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("report lacks %q:\n%s", want, data)
		}
	}
}
