// Package storetest builds what tests and benchmarks need in the database
// apart from the service's own writes: a synthetic history of a million
// jobs written with COPY ([Seed]) for the list benchmark and the
// query-plan tests, and stored levels ([Level]) for tests that create jobs
// through the store. It also runs jobs as a worker would ([Start],
// [ClaimBatch], [Finish]), for tests that store results without a worker.
// It is test support (like pgx's pgxtest and River's
// testfactory): tests and `puzzled bench-query` link it, the service
// never does (internal/archtest checks).
package storetest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/puzzled/puzzled/store"
)

// Level is body as the store keeps a level of kind: body should be the
// level's canonical JSON, and the hash is its SHA-256, as the API computes
// it.
func Level(kind string, body []byte) store.Level {
	sum := sha256.Sum256(body)
	return store.Level{Hash: hex.EncodeToString(sum[:]), Kind: kind, Body: body}
}

// Worker is the worker id that Start and ClaimBatch run jobs as.
const Worker = "storetest"

func owner() store.Owner { return store.Owner{ID: Worker, DeadAfter: time.Hour} }

// Start starts jobs as a worker would (store.StartJobs) and returns the
// run of each job started: what a test passes with their results to
// store.FinishJobs. A job that did not start (final, gone) has none.
func Start(ctx context.Context, st *store.Store, ids ...int64) (map[int64]store.Run, error) {
	jobs, err := st.StartJobs(ctx, ids, owner())
	if err != nil {
		return nil, err
	}
	runs := make(map[int64]store.Run, len(jobs))
	for id, j := range jobs {
		runs[id] = store.RunOf(Worker, j)
	}
	return runs, nil
}

// ClaimBatch claims every bundle of a batch of total jobs as a worker
// would (store.ClaimBundle) and returns the run of each job claimed.
func ClaimBatch(ctx context.Context, st *store.Store, batchID int64, total int) (map[int64]store.Run, error) {
	runs := make(map[int64]store.Run, total)
	for from := 0; from < total; from += store.BundleSize {
		jobs, err := st.ClaimBundle(ctx, batchID, int32(from), int32(from+store.BundleSize), owner())
		if err != nil {
			return nil, err
		}
		for _, j := range jobs {
			runs[j.ID] = store.RunOf(Worker, j)
		}
	}
	return runs, nil
}

// Finish starts the jobs of fs (Start) and stores their results with
// their runs, as a worker's runs would; it returns what FinishJobs does.
func Finish(ctx context.Context, st *store.Store, fs []store.Finish) (stored map[int64]bool, fenced []int64, err error) {
	ids := make([]int64, len(fs))
	for i, f := range fs {
		ids[i] = f.JobID
	}
	runs, err := Start(ctx, st, ids...)
	if err != nil {
		return nil, nil, err
	}
	withRuns := make([]store.Finish, len(fs))
	for i, f := range fs {
		f.Run = runs[f.JobID]
		withRuns[i] = f
	}
	return st.FinishJobs(ctx, withRuns)
}
