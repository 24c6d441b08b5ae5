// Package jobtype holds the words of a job that every layer shares: its
// [State], its [Priority], and [Spec], what a client asks of a job, with
// its one normalize-and-validate ([Options.Normalize]) and the defaults it
// applies. The store, the queue, the worker, the HTTP API and its client
// all use these types, so that none of them imports another's (the way
// River's rivertype and asynq's internal/base sit below their packages).
//
// It is a leaf: it imports only the standard library and package solver,
// whose [solver.Verdict] stays there, next to the results that carry it.
package jobtype
