package store

import "github.com/puzzled/puzzled/jobtype"

// For TestKeyedWritesReadOnlyTheirJobs: FinishJobs' statement, and the
// conditions the other keyed writes use.
const StillLive = stillLive

var FinishJobsSQL = finishJobsSQL

var StateRunning = stateIs(jobtype.Running)

// For TestListQueriesUseIndexes: the queries of a project's stats that read
// its jobs outside batches.
var LoneStatsSQL = []string{rawCountsSQL(loneJobs), rawHistsSQL(loneJobs)}

// For TestTakeOverReadsNoJobWhileNoWorkerDied.
const TakeOverSQL = takeOverSQL

// For TestClaimsReadEachLevelByKey.
var ClaimBundleSQL, StartJobsSQL = claimBundleSQL, startJobsSQL

// WaitBackground waits for the store's background work (the ANALYZE
// after a large batch), for TestALargeBatchIsAnalyzed.
func (s *Store) WaitBackground() { s.background.Wait() }
