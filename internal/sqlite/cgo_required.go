//go:build !cgo

package sqlite

// The state database is SQLite compiled into the binary by cgo
// (mattn/go-sqlite3 bundles SQLite's C source). Built with CGO_ENABLED=0,
// or with no C compiler, the driver has none of its API, and the compiler
// would only say "undefined: sqlite3.ErrNo". This line fails first and
// names the cause: build with CGO_ENABLED=1 and a C compiler (gcc or
// clang) on PATH, and -tags sqlite_fts5.
var _ = hermesstate_requires_cgo_and_a_C_compiler
