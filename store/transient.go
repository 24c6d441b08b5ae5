package store

import (
	"errors"
	"io"
	"net"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
)

// Transient reports whether err may pass with time: the server refuses or
// drops connections (not started yet, restarting), says it is starting or
// shutting down, or its connection table is full. A bad URL, a refused
// password, a missing database or a failed statement are not.
func Transient(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "53300", // too_many_connections
			"57P01", "57P02", "57P03", // admin_shutdown, crash_shutdown, cannot_connect_now
			"08000", "08003", "08006": // connection_exception, connection_does_not_exist, connection_failure
			return true
		}
		return false
	}
	var opErr *net.OpError
	return errors.As(err, &opErr) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}
