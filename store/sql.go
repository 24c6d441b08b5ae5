package store

import (
	"github.com/puzzled/puzzled/api/wire"
	"github.com/puzzled/puzzled/solver"
)

// SQL written once, built from the typed constants so that Go and SQL
// cannot disagree on what "live" and "definitive" mean.
const (
	// liveStates lists the states a job can still leave (wire.JobState.Live):
	// write `state IN ` + liveStates.
	liveStates = "('" + string(wire.Queued) + "', '" + string(wire.Running) + "')"

	// definitiveVerdicts lists the verdicts final for a level
	// (solver.Verdict.Definitive), the only ones reused as a cache:
	// write `verdict IN ` + definitiveVerdicts.
	definitiveVerdicts = "('" + string(solver.Solved) + "', '" + string(solver.Unsolvable) + "')"

	// insertResults starts every INSERT INTO results; the caller appends
	// the SELECT or VALUES in this column order.
	insertResults = `INSERT INTO results
		(job_id, level_hash, solver_version, verdict, value, optimal, proof, plan, details, stats, difficulty)`
)
