// Package devstack runs the real PostgreSQL and Redis servers that puzzled needs
// as child processes of the current process: `puzzled dev` uses it for a
// one-machine setup and internal/envtest uses it for integration tests.
//
// # Processes
//
// Every server is started in a process group of its own, with a parent-death
// signal (Linux Pdeathsig) so that it goes away when the process that started it
// dies, even by SIGKILL. When the current process is root, the servers run as an
// unprivileged system user ("postgres" or "redis" when they exist, else
// "nobody"): initdb and postgres refuse to run as root. The data folders are
// chowned to that user, and every parent folder must let that user through.
//
// # Servers
//
// [StartPostgres] runs initdb on first use of a data folder and reuses it later,
// listens on 127.0.0.1 only, and creates the configured database. [StartRedis]
// runs redis-server when it is installed and falls back to an in-process
// miniredis otherwise. Both have Stop, Restart (same port) and Kill (SIGKILL,
// for chaos tests).
//
// # Passwords
//
// Without a password (tests), local connections are trusted. With
// PostgresConfig.Password / RedisConfig.Password (`puzzled dev`), every
// connection must give it: PostgreSQL uses SCRAM (a cluster made before is
// switched on its next start), redis-server reads `requirepass` from a file of
// mode 0600, and miniredis asks for AUTH. The password never appears on a
// command line, which every local user can read.
//
// redis-server also gets `shutdown-on-sigterm force` (Redis 7 and later):
// SIGTERM is its parent-death signal, and by default it refuses to exit when
// its final save fails, for example because its folder was removed.
package devstack

import "errors"

// Sentinel errors that callers may branch on with errors.Is. The errors that
// StartPostgres and StartRedis return wrap them with the details.
var (
	// ErrBinaryNotFound means a server binary (postgres, initdb) is not installed.
	ErrBinaryNotFound = errors.New("devstack: server binary not found")
	// ErrPortInUse means the requested port is already taken.
	ErrPortInUse = errors.New("devstack: port in use")
	// ErrInitdb means initdb failed; the error carries its output.
	ErrInitdb = errors.New("devstack: initdb failed")
	// ErrNotReady means a server did not accept connections in time or exited
	// during start-up; the error carries the tail of its log.
	ErrNotReady = errors.New("devstack: server did not become ready")
	// ErrDirUnreachable means the unprivileged user cannot reach a data folder.
	ErrDirUnreachable = errors.New("devstack: data folder not reachable")
	// ErrBadPassword means PostgreSQL refused the configured password (or asked
	// for one when none is configured).
	ErrBadPassword = errors.New("devstack: server refused the password")
	// ErrStillRunning means processes of an earlier server still use the data folder.
	ErrStillRunning = errors.New("devstack: earlier server still running")
)
