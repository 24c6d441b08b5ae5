package store

import "github.com/puzzled/puzzled/jobtype"

// For TestKeyedWritesReadOnlyTheirJobs: FinishJobs' statement, and the
// conditions the other keyed writes use.
const StillLive = stillLive

var FinishJobsSQL = finishJobsSQL

var StateRunning = stateIs(jobtype.Running)
