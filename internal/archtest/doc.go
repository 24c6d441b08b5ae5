// Package archtest checks how the module is cut, from `go list`: which
// package may import which (import rules), that docs/architecture.md's
// table of packages says what the code imports, and that the worker's
// functions stay short. It holds tests only.
package archtest
