// Package wire holds the types the HTTP API sends and receives: jobs,
// batches, results, levels and reports, as JSON. The API server maps the
// store's rows to them and [github.com/puzzled/puzzled/api/client] decodes
// into them, so a client links neither the database driver nor the
// migrations (the way River's rivertype and Miniflux's client/model.go
// keep their clients free of storage).
//
// It is a leaf package: it imports only the standard library and solver.
// The job states ([JobState]) are defined here once and used by the store,
// the worker and the CLIs alike.
package wire
