package main

import (
	"context"
	"fmt"

	"github.com/puzzled/puzzled/api/wire"
	"github.com/puzzled/puzzled/solver"
)

// runRepair asks the server for the smallest edits that make an
// unsolvable job's level solvable (POST /v1/jobs/{id}/repair).
func runRepair(ctx context.Context, e *env, args []string) int {
	fs := e.flagSet("repair", "[flags] JOB_ID",
		"Looks for the smallest edits that make the level of an unsolvable job solvable: sheep swaps the\n"+
			"types of two tiles, then rotates those of three; zuma adds or changes one ball of the hand;\n"+
			"columns changes one jewel of one piece. Each fix is solved and its plan replayed; the fixes\n"+
			"are the jobs of the repair's batch. --wait follows it to the end.")
	count := fs.Int("count", 0, "fixes to keep at most (0: 3)")
	edits := fs.Int("max-edits", 0, "largest edit size (0: the kind's largest)")
	candidates := fs.Int("max-candidates", 0, "edits to try at most (0: all up to --max-edits)")
	budgetMS := fs.Int64("budget-ms", 0, "solve budget per edit in ms (0: the kind's default)")
	wait := fs.Bool("wait", false, "follow the repair until it ends")
	id, code, ok := parseIDArgs(e, fs, args)
	if !ok {
		return code
	}
	c := e.client()
	g, err := c.Repair(ctx, id, wire.RepairRequest{Count: *count, MaxEdits: *edits, MaxCandidates: *candidates,
		Budget: solver.Budget{MaxMS: *budgetMS}})
	if err != nil {
		return e.errorf("repair: job %d: %v", id, err)
	}
	if *wait {
		if g, err = followGeneration(ctx, e, c, g); err != nil {
			if ctx.Err() != nil {
				fmt.Fprintf(e.stderr, "puzzlectl: repair: interrupted; repair %d goes on\n", g.ID)
				return exitInterrupted
			}
			return e.errorf("repair: %v", err)
		}
	}
	if err := printGeneration(e, g); err != nil {
		return e.errorf("repair: %v", err)
	}
	return exitOK
}
