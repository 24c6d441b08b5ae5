package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/puzzled/puzzled/api/client"
	"github.com/puzzled/puzzled/api/wire"
	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/difficulty"
	"github.com/puzzled/puzzled/solver/generate"
	"github.com/puzzled/puzzled/solver/kinds"
)

// generatedLine is one level `puzzlectl generate --local` keeps.
type generatedLine struct {
	Candidate int             `json:"candidate"`
	Score     int             `json:"score"`
	Level     json.RawMessage `json:"level"`
	*solver.Result
}

// runGenerate makes levels to a target difficulty from a template: on
// the server as a batch (POST /v1/generate), or here with --local.
func runGenerate(ctx context.Context, e *env, args []string) int {
	fs := e.flagSet("generate", "[flags] TEMPLATE.json|-",
		"Makes --count solvable levels whose difficulty score lies in [--min, --max] from a template:\n"+
			"a sheep layout (types dealt anew), a zuma hand or ammo level (board and supply drawn anew\n"+
			"with its length and colors), a columns level (pieces drawn anew). Each level is solved, its\n"+
			"plan replayed and rated; the others are counted by why they were rejected.\n"+
			"--local runs here and prints the kept levels as NDJSON; otherwise the server does it as a\n"+
			"batch (POST /v1/generate), which --wait follows.")
	count := fs.Int("count", 10, "levels to keep")
	lo := fs.Int("min", 1, "lowest score kept")
	hi := fs.Int("max", 10, "highest score kept")
	seed := fs.Uint64("seed", 1, "random seed: candidate i is dealt from (seed, i)")
	candidates := fs.Int("max-candidates", 0, fmt.Sprintf("candidates to try at most (0: %d per level)", generate.DefaultCandidatesPerLevel))
	budgetMS := fs.Int64("budget-ms", 0, "solve budget per candidate in ms (0: the kind's default)")
	playouts := fs.Int("playouts", 0, "playouts per player of each candidate's figures (0: the default 1,000)")
	local := fs.Bool("local", false, "generate here, without a server")
	wait := fs.Bool("wait", false, "server: follow the generation until it ends")
	pos, code, ok := parseArgs(fs, args)
	if !ok {
		return code
	}
	if !wantArgs(fs, pos, 1, 1) {
		return exitError
	}
	data, err := readLayout(pos[0], e.stdin)
	if err != nil {
		return e.errorf("generate: %v", err)
	}
	if !*local {
		return generateOnServer(ctx, e, data, generateFlags{count: *count, lo: *lo, hi: *hi, seed: *seed,
			candidates: *candidates, budgetMS: *budgetMS, playouts: *playouts, wait: *wait})
	}
	reg := kinds.Registry()
	tpl, err := reg.Parse(data)
	if err != nil {
		return e.errorf("generate: %s: %v", pos[0], err)
	}
	kind := reg.KindOf(tpl)
	r := generate.Request{Template: tpl, Count: *count, MinScore: *lo, MaxScore: *hi, Seed: *seed,
		MaxCandidates: *candidates, Budget: solver.Budget{MaxMS: *budgetMS},
		Rating: difficulty.Options{Playouts: *playouts, Workers: 0}}
	if r.Budget == (solver.Budget{}) {
		r.Budget = reg.DefaultBudget(kind.Name())
	}
	out := newJSONLines(e.stdout)
	rep, err := generate.Run(ctx, kind, r, 0, 0, func(c generate.Candidate) error {
		if c.Reject != "" {
			return nil
		}
		res := c.Result
		res.Difficulty, _ = json.Marshal(c.Figures)
		if err := out.write(generatedLine{Candidate: c.Index, Score: *c.Figures.Score, Level: c.Level.Canonical(), Result: &res}); err != nil {
			return err
		}
		return out.flush()
	})
	fmt.Fprintf(e.stderr, "puzzlectl: generate: kept %d of %d candidates%s\n", len(rep.Accepted), rep.Tried, rejections(rep.Rejected))
	switch {
	case ctx.Err() != nil:
		fmt.Fprintln(e.stderr, "puzzlectl: generate: interrupted")
		return exitInterrupted
	case err != nil:
		return e.errorf("generate: %v", err)
	case len(rep.Accepted) < r.Count:
		return e.errorf("generate: only %d of %d levels within %d candidates", len(rep.Accepted), r.Count, rep.Tried)
	}
	return exitOK
}

// rejections formats rejection counts as "; rejected: unsolvable 3, …".
func rejections(m map[string]int) string {
	if len(m) == 0 {
		return ""
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return "; rejected: " + strings.Join(parts, ", ")
}

// generateFlags are the server-side options of `puzzlectl generate`.
type generateFlags struct {
	count, lo, hi, candidates, playouts int
	seed                                uint64
	budgetMS                            int64
	wait                                bool
}

// generateOnServer starts the generation on the server and prints it;
// with wait it follows it until it ends.
func generateOnServer(ctx context.Context, e *env, template []byte, f generateFlags) int {
	c := e.client()
	req := wire.GenerateRequest{Template: template, Count: f.count, Score: wire.ScoreBand{Min: f.lo, Max: f.hi},
		Seed: f.seed, MaxCandidates: f.candidates, Budget: solver.Budget{MaxMS: f.budgetMS}}
	if f.playouts > 0 {
		req.Difficulty = &jobtype.Difficulty{Playouts: f.playouts}
	}
	g, err := c.Generate(ctx, req)
	if err != nil {
		return e.errorf("generate: %v", err)
	}
	if f.wait {
		if g, err = followGeneration(ctx, e, c, g); err != nil {
			if ctx.Err() != nil {
				fmt.Fprintf(e.stderr, "puzzlectl: generate: interrupted; generation %d goes on (cancel: POST /v1/generations/%d/cancel)\n", g.ID, g.ID)
				return exitInterrupted
			}
			return e.errorf("generate: %v", err)
		}
	}
	if err := printGeneration(e, g); err != nil {
		return e.errorf("generate: %v", err)
	}
	if f.wait && g.State != "done" {
		return exitBatchFailed
	}
	return exitOK
}

// followGeneration polls g until it ends, with a progress line on a
// terminal.
func followGeneration(ctx context.Context, e *env, c *client.Client, g wire.Generation) (wire.Generation, error) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for g.State == "running" {
		if isTerminal(e.stderr) {
			fmt.Fprintf(e.stderr, "\rgeneration %d: kept %d of %d, %d candidates tried ", g.ID, g.Kept, g.Count, g.Tried)
		}
		select {
		case <-ctx.Done():
			return g, ctx.Err()
		case <-tick.C:
		}
		next, err := c.GetGeneration(ctx, g.ID)
		if err != nil {
			return g, err
		}
		g = next
	}
	if isTerminal(e.stderr) {
		fmt.Fprintln(e.stderr)
	}
	return g, nil
}

// printGeneration prints a generation: JSON, or a table on a terminal.
func printGeneration(e *env, g wire.Generation) error {
	if e.machine() {
		return writeJSONLine(e.stdout, g)
	}
	t := newTable(e.stdout)
	t.row("generation", fmt.Sprint(g.ID))
	t.row("mode", g.Mode)
	t.row("batch", fmt.Sprint(g.BatchID))
	t.row("state", g.State)
	t.row("kept", fmt.Sprintf("%d of %d", g.Kept, g.Count))
	t.row("tried", fmt.Sprint(g.Tried))
	t.row("rejected", strings.TrimPrefix(rejections(g.Rejected), "; rejected: "))
	if g.Note != "" {
		t.row("note", g.Note)
	}
	return t.flush()
}
