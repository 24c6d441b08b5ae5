package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/puzzled/puzzled/api/wire"
	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/difficulty"
	"github.com/puzzled/puzzled/solver/kinds"
)

// Exit statuses of `puzzlectl check`, the ones a CI step understands.
// They differ from the other commands' on purpose (docs/ci.md).
const (
	checkPassed = 0 // every level meets its expectation
	checkFailed = 1 // some level does not (or is not a valid level)
	checkError  = 2 // the check could not run: bad usage, the server, a job that failed
)

// Statuses of one level of a check.
const (
	casePass  = "pass"
	caseFail  = "fail"  // the level does not meet its expectation
	caseError = "error" // no verdict: the job failed or was canceled on the server
)

// maxLineText caps the plan text quoted in a failure.
const maxLineText = 400

// checkCase is one level of a check and how it came out; the JSON of
// --format json and one JUnit test case.
type checkCase struct {
	Name      string          `json:"name"` // file, or file:line for a line of an NDJSON file
	File      string          `json:"file"`
	Line      int             `json:"line,omitempty"`
	Kind      string          `json:"kind,omitempty"`
	Expect    string          `json:"expect"`
	Status    string          `json:"status"`
	Reason    string          `json:"reason,omitempty"`
	Verdict   string          `json:"verdict,omitempty"`
	Proof     string          `json:"proof,omitempty"`
	Score     *int            `json:"score,omitempty"`
	PlanLen   *int            `json:"plan_length,omitempty"`
	BestLine  json.RawMessage `json:"best_line,omitempty"` // the plan of a failing level: a solution, or the best partial line
	Cached    bool            `json:"cached"`
	JobID     int64           `json:"job_id,omitempty"`
	URL       string          `json:"url,omitempty"` // the level's page in the workbench
	ElapsedMS int64           `json:"elapsed_ms"`    // the solve's; 0 when cached

	lvl level
	exp expectation
}

// checkReport is the whole check: --format json prints it.
type checkReport struct {
	BatchID   int64       `json:"batch_id,omitempty"`
	BatchURL  string      `json:"batch_url,omitempty"`
	Total     int         `json:"total"`
	Passed    int         `json:"passed"`
	Failed    int         `json:"failed"`
	Errors    int         `json:"errors"`
	Cached    int         `json:"cached"`
	ElapsedMS int64       `json:"elapsed_ms"`
	Levels    []checkCase `json:"levels"`

	started time.Time
}

// checkFlags are the options of a check.
type checkFlags struct {
	opts     jobtype.Options
	expect   string
	score    string
	plan     string
	junit    string
	format   string
	suite    string
	verbose  bool
	playouts func() *jobtype.Difficulty
}

func runCheck(ctx context.Context, e *env, args []string) int {
	fs := e.flagSet("check", "[flags] PATH|GLOB...",
		"Checks levels in CI: submits them as one batch, waits, and compares each verdict with what is\n"+
			"expected of it: --expect for all, FILE.expect next to a level file, or {\"level\": …, \"expect\": …}\n"+
			"inside it (docs/ci.md). Levels with a stored definitive result are answered from the cache.\n"+
			"Exit 0 when every level meets its expectation, 1 when any does not (or is not a valid level),\n"+
			"2 on usage or server errors, or a job without a verdict (failed, canceled).")
	var f checkFlags
	fs.StringVar(&f.expect, "expect", expectSolvable, "verdict expected of every level: solvable, unsolvable or decided (not unknown)")
	fs.StringVar(&f.score, "score", "", "difficulty score band of solved levels, e.g. 3-7, 5- or -8 (asks for difficulty figures)")
	fs.StringVar(&f.plan, "plan", "", "plan length band of solved levels in moves, e.g. -40 or 10-60")
	fs.StringVar(&f.junit, "junit", "", "write a JUnit XML report to this file")
	fs.StringVar(&f.format, "format", "human", "human or json (stdout)")
	fs.StringVar(&f.suite, "suite", "puzzled", "name of the JUnit test suite")
	fs.BoolVar(&f.verbose, "v", false, "human format: list passing levels too")
	fs.StringVar((*string)(&f.opts.Priority), "priority", "", "interactive or bulk (server default: bulk)")
	fs.Int64Var(&f.opts.Budget.MaxMS, "budget-ms", 0, "time budget per level in ms (0: server default)")
	fs.Int64Var(&f.opts.Budget.MaxNodes, "max-nodes", 0, "node budget per level (0: none)")
	fs.StringVar(&f.opts.Project, "project", "", "project of the batch (default: the token's only project, else 'default')")
	f.playouts = playoutsFlag(fs)
	var labels labelFlags
	fs.Var(&labels, "label", "key:value label of the batch (repeatable)")
	pos, code, ok := parseArgs(fs, args)
	if !ok {
		return checkExit(code)
	}
	if !wantArgs(fs, pos, 1, -1) {
		return checkError
	}
	base, err := f.baseExpectation()
	if err != nil {
		return e.checkErrorf("%v", err)
	}
	if len(labels) > 0 {
		f.opts.Labels = labelsJSON(labels)
	}
	rep := &checkReport{started: time.Now()}
	rep.Levels, err = checkCases(pos, e.stdin, base)
	if err != nil {
		return e.checkErrorf("%v", err)
	}
	f.opts.Difficulty = f.playouts()
	if f.opts.Difficulty == nil && wantsScore(rep.Levels) {
		f.opts.Difficulty = &jobtype.Difficulty{Playouts: difficulty.DefaultPlayouts}
	}
	if err := runCheckBatch(ctx, e, f.opts, rep); err != nil {
		if ctx.Err() != nil {
			return exitInterrupted
		}
		return e.checkErrorf("%v", err)
	}
	rep.tally()
	if f.junit != "" {
		if err := writeJUnitFile(f.junit, f.suite, rep); err != nil {
			return e.checkErrorf("%v", err)
		}
	}
	if err := f.print(e, rep); err != nil {
		return e.checkErrorf("%v", err)
	}
	switch {
	case rep.Errors > 0:
		return checkError
	case rep.Failed > 0:
		return checkFailed
	}
	return checkPassed
}

// checkExit maps the exit status of parseArgs (-h, a bad flag) to check's.
func checkExit(code int) int {
	if code == exitOK {
		return checkPassed
	}
	return checkError
}

func (e *env) checkErrorf(format string, args ...any) int {
	fmt.Fprintf(e.stderr, "puzzlectl: check: "+format+"\n", args...)
	return checkError
}

func labelsJSON(labels labelFlags) json.RawMessage {
	m := map[string]string{}
	for _, l := range labels {
		k, v, _ := strings.Cut(l, ":")
		m[k] = v
	}
	data, _ := json.Marshal(m)
	return data
}

// baseExpectation is the expectation of the flags.
func (f *checkFlags) baseExpectation() (expectation, error) {
	if !validVerdict(f.expect) {
		return expectation{}, fmt.Errorf("--expect %q: want solvable, unsolvable or decided", f.expect)
	}
	exp := expectation{Verdict: f.expect}
	var err error
	if f.score != "" {
		if exp.Score, err = parseBand(f.score); err != nil {
			return exp, fmt.Errorf("--score: %w", err)
		}
	}
	if f.plan != "" {
		if exp.Plan, err = parseBand(f.plan); err != nil {
			return exp, fmt.Errorf("--plan: %w", err)
		}
	}
	if f.format != "human" && f.format != "json" {
		return exp, fmt.Errorf("--format %q: want human or json", f.format)
	}
	return exp, nil
}

// checkCases reads the levels of paths with their expectations: the flags'
// (base), a file's sidecar on top, a wrapped level's own on top of that.
// Levels that do not parse fail here, with the reason.
func checkCases(paths []string, stdin io.Reader, base expectation) ([]checkCase, error) {
	levels, err := collectLevels(paths, stdin)
	if err != nil {
		return nil, err
	}
	sidecars := map[string]expectation{}
	reg := kinds.Registry()
	cases := make([]checkCase, len(levels))
	for i, l := range levels {
		exp, ok := sidecars[l.file]
		if !ok {
			exp = base
			if l.file != "-" {
				if exp, _, err = readSidecar(l.file, base); err != nil {
					return nil, err
				}
			}
			sidecars[l.file] = exp
		}
		c := checkCase{Name: l.where(), File: l.file, Line: l.line, lvl: l}
		if l.err == nil {
			inner, spec, err := unwrapExpect(l.data)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", l.where(), err)
			}
			if spec != nil {
				if exp, err = parseExpectSpec(spec, exp); err != nil {
					return nil, fmt.Errorf("%s: %w", l.where(), err)
				}
			}
			c.lvl.data = inner
		}
		c.exp, c.Expect = exp, exp.String()
		if lvl, err := parseLevel(reg, c.lvl); err != nil {
			c.Status, c.Reason = caseFail, "invalid level: "+describe(err)
		} else {
			c.Kind = lvl.Kind()
		}
		cases[i] = c
	}
	return cases, nil
}

func (x expectation) String() string {
	s := x.Verdict
	if x.Verdict != expectUnsolvable {
		if x.Score != nil {
			s += ", score " + x.Score.String()
		}
		if x.Plan != nil {
			s += ", plan " + x.Plan.String() + " moves"
		}
	}
	return s
}

func wantsScore(cases []checkCase) bool {
	for _, c := range cases {
		if c.exp.Score != nil && c.Status == "" {
			return true
		}
	}
	return false
}

// runCheckBatch submits the valid levels as one batch, waits for it with
// a progress bar on stderr, and judges each level by its result.
func runCheckBatch(ctx context.Context, e *env, opts jobtype.Options, rep *checkReport) error {
	var sent []int // indexes into rep.Levels, in batch order
	var items []json.RawMessage
	for i, c := range rep.Levels {
		if c.Status == "" {
			sent = append(sent, i)
			items = append(items, c.lvl.withFileLabel())
		}
	}
	if len(items) == 0 {
		return nil
	}
	c := e.client()
	id, err := c.CreateBatch(ctx, items, opts)
	if err != nil {
		return fmt.Errorf("submitting %d levels: %w", len(items), err)
	}
	rep.BatchID, rep.BatchURL = id, e.server+"/ui/batches/"+strconv.FormatInt(id, 10)
	fmt.Fprintf(e.stderr, "batch %d: %d levels (%s)\n", id, len(items), rep.BatchURL)
	p := newProgress(e.stderr, id)
	_, err = pollUntilDone(ctx, c, id, p)
	p.finish()
	if err != nil {
		return fmt.Errorf("waiting for batch %d: %w", id, err)
	}
	seen := 0
	err = c.BatchResults(ctx, id, func(r wire.BatchResult) error {
		if int(r.Seq) >= len(sent) {
			return fmt.Errorf("batch %d has a result at seq %d beyond the %d levels sent", id, r.Seq, len(sent))
		}
		seen++
		rep.Levels[sent[r.Seq]].judge(r, e.server)
		return nil
	})
	if err == nil && seen != len(sent) {
		err = fmt.Errorf("batch %d: %d results for %d levels", id, seen, len(sent))
	}
	if err != nil {
		return fmt.Errorf("reading the results of batch %d: %w", id, err)
	}
	return nil
}

// judge sets the case's outcome from its job's final state and result.
func (c *checkCase) judge(r wire.BatchResult, server string) {
	c.JobID, c.Kind, c.Cached = r.JobID, r.Kind, r.Cached
	c.URL = server + "/ui/jobs/" + strconv.FormatInt(r.JobID, 10)
	if r.State != jobtype.Done || r.Result == nil {
		c.Status, c.Reason = caseError, fmt.Sprintf("job %d ended %s without a verdict", r.JobID, r.State)
		if r.Error != nil {
			c.Reason += ": " + *r.Error
		}
		return
	}
	res := r.Result
	c.Verdict, c.Proof = string(res.Verdict), res.Proof
	if !r.Cached {
		c.ElapsedMS = res.Stats.ElapsedMS
	}
	out := judgeResult(c.exp, res)
	c.Score, c.PlanLen = out.score, out.plan
	if out.ok {
		c.Status = casePass
		return
	}
	c.Status, c.Reason = caseFail, out.reason
	if res.Verdict != solver.Unsolvable {
		c.BestLine = res.Plan
	}
}

func (rep *checkReport) tally() {
	rep.Total = len(rep.Levels)
	rep.ElapsedMS = time.Since(rep.started).Milliseconds()
	for _, c := range rep.Levels {
		switch c.Status {
		case casePass:
			rep.Passed++
		case caseFail:
			rep.Failed++
		default:
			rep.Errors++
		}
		if c.Cached {
			rep.Cached++
		}
	}
}

// print writes the report on stdout: a line per failing level (every
// level with -v) and a summary, or the JSON document.
func (f *checkFlags) print(e *env, rep *checkReport) error {
	if f.format == "json" || (e.jsonOK && e.json) {
		return writeJSONLine(e.stdout, rep)
	}
	var b strings.Builder
	for _, c := range rep.Levels {
		if c.Status == casePass && !f.verbose {
			continue
		}
		fmt.Fprintf(&b, "%-5s %s", strings.ToUpper(c.Status), c.Name)
		if c.Kind != "" {
			fmt.Fprintf(&b, " (%s)", c.Kind)
		}
		fmt.Fprintf(&b, ": %s\n", c.summary())
		for _, d := range c.details() {
			fmt.Fprintf(&b, "      %s\n", d)
		}
	}
	fmt.Fprintf(&b, "%d levels: %d passed, %d failed, %d errors (%d from the cache) in %s",
		rep.Total, rep.Passed, rep.Failed, rep.Errors, rep.Cached, (time.Duration(rep.ElapsedMS) * time.Millisecond).String())
	if rep.BatchURL != "" {
		fmt.Fprintf(&b, "; batch %d: %s", rep.BatchID, rep.BatchURL)
	}
	b.WriteByte('\n')
	_, err := fmt.Fprint(e.stdout, b.String())
	return err
}

// summary is the one-line outcome of a case.
func (c *checkCase) summary() string {
	if c.Status != casePass {
		return c.Reason
	}
	s := c.Verdict
	if c.PlanLen != nil && c.Verdict == string(solver.Solved) {
		s += fmt.Sprintf(" in %d moves", *c.PlanLen)
	}
	if c.Score != nil {
		s += fmt.Sprintf(", score %d", *c.Score)
	}
	if c.Cached {
		s += " (cached)"
	}
	return s
}

// details are the lines that explain a failure: expectation, proof, the
// line found, and the level's page.
func (c *checkCase) details() []string {
	var out []string
	if c.Status != casePass {
		out = append(out, "expected: "+c.Expect)
	}
	if c.Proof != "" {
		out = append(out, "proof: "+c.Proof)
	}
	if len(c.BestLine) > 0 && string(c.BestLine) != "null" {
		label := "best line"
		if c.Verdict == string(solver.Solved) {
			label = "solution"
		}
		out = append(out, label+": "+clipText(string(c.BestLine), maxLineText))
	}
	if c.URL != "" {
		out = append(out, c.URL)
	}
	return out
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
