package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/puzzled/puzzled/api/wire"
	"github.com/puzzled/puzzled/solver"
)

// What `puzzlectl check` expects of each level (docs/ci.md). The flags set
// the default; a sidecar file next to a level file (FILE.expect) overrides
// it for every level of that file; the "expect" field of a wrapped level
// ({"level": …, "expect": …}) overrides both for that level. Each source
// overrides only the fields it names.

// Verdict expectations.
const (
	expectSolvable   = "solvable"   // the verdict is solved (the default)
	expectUnsolvable = "unsolvable" // the verdict is unsolvable, on purpose
	expectDecided    = "decided"    // solved or unsolvable: anything but unknown
)

// sidecarExt names the sidecar of a level file: levels/hard.json.expect.
const sidecarExt = ".expect"

// expectation is what a level must meet.
type expectation struct {
	Verdict string
	Score   *band // difficulty score 1–10 of a solved level
	Plan    *band // moves of a solved level's plan
}

// band is an inclusive range of integers; a nil end is open.
type band struct {
	Min, Max *int
}

// parseBand reads "3-7", "3-" (at least 3), "-7" (at most 7) or "5"
// (exactly 5).
func parseBand(s string) (*band, error) {
	s = strings.TrimSpace(s)
	lo, hi, isRange := strings.Cut(s, "-")
	if !isRange {
		hi = lo
	}
	var b band
	for _, end := range []struct {
		text string
		dst  **int
	}{{lo, &b.Min}, {hi, &b.Max}} {
		if end.text == "" {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(end.text))
		if err != nil || n < 0 {
			return nil, fmt.Errorf("bad range %q: want N-M, N-, -M or N with whole numbers ≥ 0", s)
		}
		*end.dst = &n
	}
	switch {
	case b.Min == nil && b.Max == nil:
		return nil, fmt.Errorf("bad range %q: want N-M, N-, -M or N", s)
	case b.Min != nil && b.Max != nil && *b.Min > *b.Max:
		return nil, fmt.Errorf("bad range %q: %d is above %d", s, *b.Min, *b.Max)
	}
	return &b, nil
}

func (b *band) contains(n int) bool {
	return (b.Min == nil || n >= *b.Min) && (b.Max == nil || n <= *b.Max)
}

func (b *band) String() string {
	switch {
	case b.Min != nil && b.Max != nil && *b.Min == *b.Max:
		return strconv.Itoa(*b.Min)
	case b.Min != nil && b.Max != nil:
		return fmt.Sprintf("%d-%d", *b.Min, *b.Max)
	case b.Min != nil:
		return fmt.Sprintf("%d-", *b.Min)
	}
	return fmt.Sprintf("-%d", *b.Max)
}

func validVerdict(v string) bool {
	return v == expectSolvable || v == expectUnsolvable || v == expectDecided
}

// expectSpec is the JSON of an expectation in a sidecar or a wrapped
// level: a verdict alone ("unsolvable"), or an object whose fields each
// override the default: {"verdict": "solvable", "score": "3-7",
// "plan": "-40"}. A sidecar may also hold the bare word: unsolvable.
type expectSpec struct {
	Verdict string `json:"verdict"`
	Score   string `json:"score"`
	Plan    string `json:"plan"`
}

// parseExpectSpec reads an expectation's JSON (or bare word) and applies
// it on top of base.
func parseExpectSpec(data []byte, base expectation) (expectation, error) {
	data = bytes.TrimSpace(data)
	var spec expectSpec
	switch {
	case len(data) == 0:
		return base, errors.New("empty expectation")
	case data[0] == '"':
		if err := json.Unmarshal(data, &spec.Verdict); err != nil {
			return base, fmt.Errorf("bad expectation: %w", err)
		}
	case data[0] == '{':
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&spec); err != nil {
			return base, fmt.Errorf(`bad expectation (want {"verdict": …, "score": "N-M", "plan": "N-M"}): %w`, err)
		}
	default:
		spec.Verdict = string(data)
	}
	out := base
	if spec.Verdict != "" {
		if !validVerdict(spec.Verdict) {
			return base, fmt.Errorf("bad expectation: verdict %q: want solvable, unsolvable or decided", spec.Verdict)
		}
		out.Verdict = spec.Verdict
	}
	for _, f := range []struct {
		text string
		dst  **band
	}{{spec.Score, &out.Score}, {spec.Plan, &out.Plan}} {
		if f.text == "" {
			continue
		}
		b, err := parseBand(f.text)
		if err != nil {
			return base, fmt.Errorf("bad expectation: %w", err)
		}
		*f.dst = b
	}
	return out, nil
}

// readSidecar returns the expectation of a level file's sidecar on top of
// base; ok is false when the file has none.
func readSidecar(file string, base expectation) (exp expectation, ok bool, err error) {
	data, err := os.ReadFile(file + sidecarExt)
	if errors.Is(err, fs.ErrNotExist) {
		return base, false, nil
	}
	if err != nil {
		return base, false, fmt.Errorf("reading sidecar: %w", err)
	}
	exp, err = parseExpectSpec(data, base)
	if err != nil {
		return base, false, fmt.Errorf("%s%s: %w", file, sidecarExt, err)
	}
	return exp, true, nil
}

// unwrapExpect splits a wrapped level {"level": …, "expect": …} (labels
// may be there too, and are dropped: check labels jobs by file) into the
// level and its expectation's JSON. Any other level is returned as it is,
// with no expectation.
func unwrapExpect(data []byte) (lvl, expect []byte, err error) {
	if len(data) == 0 || data[0] != '{' || !bytes.Contains(data, []byte(`"expect"`)) {
		return data, nil, nil
	}
	var head map[string]json.RawMessage
	if json.Unmarshal(data, &head) != nil {
		return data, nil, nil
	}
	inner, hasLevel := head["level"]
	exp, hasExpect := head["expect"]
	if _, hasKind := head["kind"]; hasKind || !hasLevel || !hasExpect {
		return data, nil, nil
	}
	for key := range head {
		if key != "level" && key != "expect" && key != "labels" {
			return nil, nil, fmt.Errorf(`unknown field %q of a wrapped level {"level": …, "expect": …}`, key)
		}
	}
	return bytes.TrimSpace(inner), exp, nil
}

// verdictOutcome is how a finished job measures up to its expectation:
// ok, or the reason it does not.
type verdictOutcome struct {
	ok     bool
	reason string // "expected solvable, got unsolvable"
	score  *int
	plan   *int
}

// judgeResult compares a done job's result with the expectation.
func judgeResult(exp expectation, res *wire.Result) verdictOutcome {
	out := verdictOutcome{score: scoreOf(res), plan: planLength(res)}
	got := res.Verdict
	switch {
	case exp.Verdict == expectUnsolvable && got != solver.Unsolvable,
		exp.Verdict == expectSolvable && got != solver.Solved,
		exp.Verdict == expectDecided && !got.Definitive():
		out.reason = fmt.Sprintf("expected %s, got %s", exp.Verdict, got)
		if got == solver.Unknown {
			out.reason += " (no answer within the budget)"
		}
		return out
	case got != solver.Solved:
		out.ok = true // bands apply to solved levels only
		return out
	}
	if exp.Score != nil {
		switch {
		case out.score == nil:
			out.reason = fmt.Sprintf("expected difficulty score %s, but the result has no score (a kind or mode that is not rated, or no figures)", exp.Score)
			return out
		case !exp.Score.contains(*out.score):
			out.reason = fmt.Sprintf("expected difficulty score %s, got %d", exp.Score, *out.score)
			return out
		}
	}
	if exp.Plan != nil {
		switch {
		case out.plan == nil:
			out.reason = fmt.Sprintf("expected a plan of %s moves, but the result has no plan", exp.Plan)
			return out
		case !exp.Plan.contains(*out.plan):
			out.reason = fmt.Sprintf("expected a plan of %s moves, got %d", exp.Plan, *out.plan)
			return out
		}
	}
	out.ok = true
	return out
}

// scoreOf reads the difficulty score of a result, nil when it has none.
func scoreOf(res *wire.Result) *int {
	if len(res.Difficulty) == 0 {
		return nil
	}
	var f struct {
		Score *int `json:"score"`
	}
	if json.Unmarshal(res.Difficulty, &f) != nil {
		return nil
	}
	return f.Score
}

// planLength counts the moves of a plan: the entries of a JSON array, or
// the letters of a string (twoends' "LRL…"); nil when there is no plan.
func planLength(res *wire.Result) *int {
	plan := bytes.TrimSpace(res.Plan)
	if len(plan) == 0 || string(plan) == "null" {
		return nil
	}
	var moves []json.RawMessage
	if json.Unmarshal(plan, &moves) == nil {
		n := len(moves)
		return &n
	}
	var line string
	if json.Unmarshal(plan, &line) == nil {
		n := len([]rune(line))
		return &n
	}
	return nil
}
