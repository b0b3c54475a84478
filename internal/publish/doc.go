// Package publish writes a new file so that it appears at its path whole or
// not at all: export -o, sessions backup and store.Backup use it, so they
// share one rule for what may be replaced and one way of writing.
//
// The rule: a target that exists is refused ([ErrExists]) unless the caller
// forces, and even then only a regular file is replaced ([ErrNotRegular]):
// never a symbolic link, a directory, a named pipe, a socket or a device
// node, so not even root can replace /dev/null with an export. The
// target's directory must exist ([ErrNoDirectory]); nothing is created
// above it.
//
// The way of writing: [Create] makes a private (0600) temporary file in the
// target's directory; the caller writes it (through [File.Write], or by its
// path, as SQLite's VACUUM INTO does); [File.Commit] syncs it and gives it
// the target's name, by a hard link when not forced (so a file that
// appeared at the target meanwhile is never overwritten) or a rename when
// forced, then syncs the directory. [File.Discard] removes it. The
// temporary file's name never appears in an error.
//
// A temporary file is named with [TempPrefix] and locked (flock) by the
// process writing it for as long as it exists. A process killed with
// SIGKILL leaves one behind, unlocked: [Create] removes such stale files
// from the directory it writes to, and [Stale] and [RemoveStale] find and
// remove them for sessions doctor. The files SQLite writes beside a
// temporary file it fills (its name and -journal, -wal or -shm: VACUUM
// INTO journals its output) go with it: Discard removes them, and they
// are stale when it is gone or stale.
//
// The package opens no database file: only files under its own temporary
// names, which it created itself or, for a stale one, has checked by
// Lstat to be a regular file with no other name (a database, its -wal or
// its -shm has its own name, so a second name would show as a second
// link). Closing a descriptor on the database would drop SQLite's locks.
package publish
