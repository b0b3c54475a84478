//go:build linux || darwin || freebsd

package sqlite

import "syscall"

// wOK is access(2)'s W_OK, the same value on every Unix.
const wOK = 2

// writable reports whether this process may write path, by access(2): no
// descriptor is opened (closing one on the database would drop SQLite's
// locks). It sees read-only permissions, read-only mounts and, for root,
// immutable files.
func writable(path string) error {
	return syscall.Access(path, wOK)
}
