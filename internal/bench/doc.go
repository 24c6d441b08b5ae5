// Package bench is `puzzled bench` ([Run]: asynq and end-to-end
// throughput, and how long a large batch takes to be accepted) and
// `puzzled bench-query` ([RunQuery]: the list queries on a seeded history,
// and interactive latency while bulk work runs). Each measures one run on
// one machine, on the servers of the puzzled command ([Servers]) or on a
// throwaway embedded stack; the commands print figures, they assert
// nothing (the speed goals of tests live in Go benchmarks).
package bench
