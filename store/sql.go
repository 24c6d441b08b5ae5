package store

import (
	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/solver"
)

// SQL written once, built from the typed constants so that Go and SQL
// cannot disagree on what "live" and "definitive" mean.
const (
	// liveStates lists the states a job can still leave (jobtype.State.Live):
	// write `state IN ` + liveStates.
	liveStates = "('" + string(jobtype.Queued) + "', '" + string(jobtype.Running) + "')"

	// stillLive is the condition that a job found by its key (id, or
	// batch and seq) is still live. "IS TRUE" keeps it a filter, never an
	// index condition: written as state IN liveStates, it let the planner
	// read every live job through jobs_list_state or jobs_live_batch
	// whenever the statistics, analyzed before a large batch arrived, saw
	// few of them. With 50,000 jobs queued that made each finish, start
	// and bundle claim read them all (59 ms a finish instead of 0.1 ms;
	// TestKeyedWritesReadOnlyTheirJobs). Statements that select live jobs
	// by state (the dispatcher, a worker's jobs) keep state IN liveStates,
	// which their partial indexes need.
	stillLive = "(state IN " + liveStates + ") IS TRUE"

	// definitiveVerdicts lists the verdicts final for a level
	// (solver.Verdict.Definitive), the only ones reused as a cache:
	// write `verdict IN ` + definitiveVerdicts.
	definitiveVerdicts = "('" + string(solver.Solved) + "', '" + string(solver.Unsolvable) + "')"

	// tryLockSQL takes the advisory lock $1 for the transaction if it is
	// free (one column, true if taken), and makes PostgreSQL end the
	// session should the transaction sit idle between two statements for
	// more than 5 s. The locks taken so (admission, garbage collection,
	// count compaction) make every other process skip its turn while
	// held, and a process cut off from PostgreSQL in the middle of such a
	// transaction would otherwise hold the lock until its connection is
	// found dead: hours without keepalives, during which no dispatcher
	// admits bulk work. Transaction-local (set_config's third argument),
	// so it works behind PgBouncer in transaction mode.
	tryLockSQL = `SELECT pg_try_advisory_xact_lock($1)
		FROM (SELECT set_config('idle_in_transaction_session_timeout', '5s', true)) AS idle_timeout`

	// insertResults starts every INSERT INTO results; the caller appends
	// the SELECT or VALUES in this column order.
	insertResults = `INSERT INTO results
		(job_id, level_hash, solver_version, verdict, value, optimal, proof, plan, details, stats, difficulty)`
)

// stateIs is the condition that a job found by its key is in state st, as
// a filter only (see stillLive).
func stateIs(st jobtype.State) string { return "(state = '" + string(st) + "') IS TRUE" }

// jobLabels is the SQL of the labels of job j (an alias of jobs) whose
// batch, if any, is b (an alias of batches, LEFT JOINed): the batch's
// labels with the job's own on top (migrations/00010_write_path.sql).
func jobLabels(j, b string) string {
	return "CASE WHEN " + b + ".labels IS NULL THEN " + j + ".labels ELSE " + b + ".labels || coalesce(" + j + ".labels, '{}') END"
}
