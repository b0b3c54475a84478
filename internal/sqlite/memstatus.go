package sqlite

// SQLite counts every allocation it makes (memory statistics, on unless
// compiled with SQLITE_DEFAULT_MEMSTATUS=0, which mattn/go-sqlite3 does not
// set) under one process-wide mutex. Two connections searching at once, on
// two cores, then queue on that mutex at every malloc: measured, a ranked
// search split in two took 1.07 times the whole query instead of 0.78, and
// the whole query itself 14% longer. The store reads none of those
// statistics (sqlite3_memory_used, the soft heap limit), so it turns them
// off, as SQLite's documentation recommends for speed. sqlite3_config must
// run before SQLite initialises, that is before the first connection
// opens, so it runs at package init; when another package's init opened a
// connection first, SQLite refuses (SQLITE_MISUSE) and nothing changes.
//
// The functions are mattn/go-sqlite3's copy of SQLite, linked into the same
// binary. cgo links each package's C code alone once, to learn what it
// imports, where that copy is not present; declared weak, the two names may
// stay unresolved there, and the final link resolves them to that copy
// (without it they would be NULL: -1 below, and the test fails).

/*
int sqlite3_config(int, ...) __attribute__((weak));
long long sqlite3_memory_used(void) __attribute__((weak));

// SQLITE_CONFIG_MEMSTATUS is 9 in sqlite3.h.
static int hermesstate_memstatus_off(void) {
	return sqlite3_config ? sqlite3_config(9, 0) : -1;
}

static long long hermesstate_memory_used(void) {
	return sqlite3_memory_used ? sqlite3_memory_used() : -1;
}
*/
import "C"

// memstatusRC is what sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0) returned
// at init: 0 (SQLITE_OK), or 21 (SQLITE_MISUSE) when SQLite was already
// initialised (-1: the function is not in the binary).
var memstatusRC = int(C.hermesstate_memstatus_off())

// AllocationsUnshared reports whether SQLite's memory statistics are off
// in this process, so that connections on different goroutines allocate
// without taking a common mutex (see the comment at the top of this file):
// true unless another package initialised SQLite before this one's init.
func AllocationsUnshared() bool { return memstatusRC == 0 }

// memoryUsed returns sqlite3_memory_used(): 0 while memory statistics are
// off.
func memoryUsed() int64 { return int64(C.hermesstate_memory_used()) }
