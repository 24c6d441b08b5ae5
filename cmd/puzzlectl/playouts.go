package main

import (
	"flag"

	"github.com/puzzled/puzzled/jobtype"
)

// playoutsFlag registers --playouts, the difficulty option of the jobs
// submitted, and returns a function giving the option: nil when the flag
// is left at -1, so that the server's default applies (figures for
// interactive jobs, none for bulk ones; docs/difficulty.md).
func playoutsFlag(fs *flag.FlagSet) func() *jobtype.Difficulty {
	n := fs.Int("playouts", -1, "difficulty figures: playouts per player, 0 for none (-1: server default, "+
		"1000 for interactive jobs, none for bulk)")
	return func() *jobtype.Difficulty {
		if *n == -1 {
			return nil
		}
		return &jobtype.Difficulty{Playouts: *n}
	}
}
