// Package wire holds the types the HTTP API sends and receives: jobs,
// batches, results, levels and reports, as JSON. The API server maps the
// store's rows to them field by field (api/towire.go) and
// [github.com/puzzled/puzzled/api/client] decodes into them, so a client
// links neither the database driver nor the migrations (the way River's
// rivertype and Miniflux's client/model.go keep their clients free of
// storage).
//
// It imports only the standard library, solver and jobtype, whose job
// states, priorities and options it uses as they are.
package wire
