//go:build !(linux || darwin || freebsd)

package sqlite

// writable cannot ask the system ahead on this platform; SQLite reports a
// read-only file at the first write instead (ErrReadOnly).
func writable(string) error { return nil }
