package sqlite

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mattn/go-sqlite3"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// newFile creates a WAL database at a new path holding stmts and returns
// the path.
func newFile(t *testing.T, stmts ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "x.db")
	db := dbtest.Plain(t, path)
	dbtest.Exec(t, db, append([]string{"PRAGMA journal_mode = WAL"}, stmts...)...)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// exec runs query on db and returns its error, which the case needs.
func exec(db *sql.DB, query string) error {
	_, err := db.Exec(query)
	return err
}

// The real failures: each provokes one SQLite error by a real operation on
// a real file, and the case records the codes the driver reported.

// busyError is BEGIN IMMEDIATE while another connection holds the write
// lock, without a busy timeout: SQLITE_BUSY.
func busyError(t *testing.T) error {
	path := newFile(t, "CREATE TABLE t (x)")
	dbtest.HoldWriteLock(t, path)
	return exec(dbtest.Plain(t, path+"?_busy_timeout=0"), "BEGIN IMMEDIATE")
}

// busySnapshotError is a write in a read transaction whose snapshot
// another connection's commit made stale: SQLITE_BUSY_SNAPSHOT.
func busySnapshotError(t *testing.T) error {
	path := newFile(t, "CREATE TABLE t (x)", "INSERT INTO t VALUES (1)")
	reader := dbtest.Plain(t, path+"?_busy_timeout=0")
	conn, err := reader.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var n int
	if _, err := conn.ExecContext(t.Context(), "BEGIN"); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRowContext(t.Context(), "SELECT COUNT(*) FROM t").Scan(&n); err != nil {
		t.Fatal(err)
	}
	dbtest.Exec(t, dbtest.Plain(t, path), "INSERT INTO t VALUES (2)")
	_, err = conn.ExecContext(t.Context(), "INSERT INTO t VALUES (3)")
	conn.ExecContext(t.Context(), "ROLLBACK")
	return err
}

// lockedError reads, through a shared cache, a table another connection
// of the cache is writing: SQLITE_LOCKED_SHAREDCACHE.
func lockedError(t *testing.T) error {
	dsn := "file:" + filepath.Join(t.TempDir(), "x.db") + "?cache=shared"
	writer, reader := dbtest.Plain(t, dsn), dbtest.Plain(t, dsn)
	dbtest.Exec(t, writer, "CREATE TABLE t (x)", "BEGIN", "INSERT INTO t VALUES (1)")
	defer writer.Exec("ROLLBACK")
	var n int
	return reader.QueryRow("SELECT COUNT(*) FROM t").Scan(&n)
}

// notADBError reads a text file: SQLITE_NOTADB.
func notADBError(t *testing.T) error {
	path := filepath.Join(t.TempDir(), "notes.db")
	if err := os.WriteFile(path, []byte(strings.Repeat("these are notes, not a database\n", 200)), 0o600); err != nil {
		t.Fatal(err)
	}
	return exec(dbtest.Plain(t, path), "SELECT * FROM sqlite_schema")
}

// readOnlyError inserts through a read-only connection: SQLITE_READONLY.
func readOnlyError(t *testing.T) error {
	path := newFile(t, "CREATE TABLE t (x)")
	return exec(dbtest.Plain(t, "file:"+path+"?mode=ro"), "INSERT INTO t VALUES (1)")
}

// cantOpenError opens a file in a missing directory: SQLITE_CANTOPEN.
func cantOpenError(t *testing.T) error {
	return exec(dbtest.Plain(t, filepath.Join(t.TempDir(), "no", "x.db")), "CREATE TABLE t (x)")
}

// corruptError reads a table whose b-tree page was overwritten:
// SQLITE_CORRUPT.
func corruptError(t *testing.T) error {
	path := newFile(t, "PRAGMA journal_mode = DELETE", "CREATE TABLE t (x)",
		"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000) INSERT INTO t SELECT printf('row %d', i) FROM n")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Page 2, the table's root: its header and cell pointers become garbage.
	copy(b[4096:4096+64], strings.Repeat("\xff", 64))
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	var n int
	return dbtest.Plain(t, path).QueryRow("SELECT COUNT(*) FROM t").Scan(&n)
}

// corruptVTabError searches an FTS5 index whose segment blocks were
// deleted: SQLITE_CORRUPT_VTAB.
func corruptVTabError(t *testing.T) error {
	path := newFile(t, "CREATE VIRTUAL TABLE f USING fts5(body)",
		"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 50) INSERT INTO f SELECT printf('hello %d', i) FROM n",
		"DELETE FROM f_data WHERE id > 10")
	rows, err := dbtest.Plain(t, path).Query("SELECT rowid FROM f WHERE f MATCH 'hello'")
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
	}
	return rows.Err()
}

// fullError inserts past the page limit: SQLITE_FULL.
func fullError(t *testing.T) error {
	db := dbtest.Plain(t, newFile(t, "CREATE TABLE t (x)"))
	dbtest.Exec(t, db, "PRAGMA max_page_count = 3")
	return exec(db, "INSERT INTO t VALUES (randomblob(100000))")
}

// shmFullError opens a WAL database on a full filesystem: SQLite cannot
// grow the -shm file, SQLITE_IOERR_SHMSIZE with errno ENOSPC. It needs a
// tmpfs (dbtest.Tmpfs), and skips without one.
func shmFullError(t *testing.T) error {
	dir := dbtest.Tmpfs(t, "1m")
	path := filepath.Join(dir, "x.db")
	db := dbtest.Plain(t, path)
	dbtest.Exec(t, db, "PRAGMA journal_mode = WAL", "CREATE TABLE t (x)")
	if err := db.Close(); err != nil { // the last connection: no -shm left
		t.Fatal(err)
	}
	dbtest.Fill(t, filepath.Join(dir, "fill"))
	var n int
	return dbtest.Plain(t, path).QueryRow("SELECT COUNT(*) FROM t").Scan(&n)
}

// constraintError runs stmt on a new file holding a parent and a child
// table with every kind of constraint.
func constraintError(t *testing.T, stmt string) error {
	db := dbtest.Plain(t, newFile(t,
		"CREATE TABLE parent (id TEXT PRIMARY KEY, title TEXT UNIQUE)",
		"CREATE TABLE child (id INTEGER PRIMARY KEY, parent TEXT NOT NULL REFERENCES parent(id), n INTEGER CHECK (n >= 0))",
		"INSERT INTO parent VALUES ('p', 'taken')"))
	dbtest.Exec(t, db, "PRAGMA foreign_keys = ON")
	return exec(db, stmt)
}

// TestClassify provokes each class of failure Classify and the predicates
// know with a real SQLite operation where SQLite can be made to fail so,
// and a constructed driver error only for the rest (errno values a test
// cannot make a filesystem report, I/O errors that are not a full disk).
// Each row checks the codes the driver reported, the sentinel Classify
// matches (none: the error comes back unchanged), the predicates, and
// that the driver's error stays inside.
func TestClassify(t *testing.T) {
	t.Parallel()
	io := func(ext sqlite3.ErrNoExtended, errno syscall.Errno) error {
		return sqlite3.Error{Code: sqlite3.ErrIoErr, ExtendedCode: ext, SystemErrno: errno}
	}
	for _, tt := range []struct {
		name       string
		err        func(t *testing.T) error
		code       sqlite3.ErrNo
		ext        sqlite3.ErrNoExtended
		want       error // the sentinel; nil: returned unchanged
		msg        string
		foreignKey bool
		unique     bool
	}{
		{"Busy", busyError, sqlite3.ErrBusy, sqlite3.ErrNoExtended(sqlite3.ErrBusy), ErrBusy,
			"database is locked by another connection: database is locked", false, false},
		{"BusySnapshot", busySnapshotError, sqlite3.ErrBusy, sqlite3.ErrBusySnapshot, ErrBusy,
			"database is locked by another connection: database is locked", false, false},
		{"LockedSharedCache", lockedError, sqlite3.ErrLocked, sqlite3.ErrLockedSharedCache, ErrBusy,
			"database is locked by another connection: database table is locked: t", false, false},
		{"NotADB", notADBError, sqlite3.ErrNotADB, sqlite3.ErrNoExtended(sqlite3.ErrNotADB), ErrNotDatabase,
			"file is not a SQLite database: file is not a database", false, false},
		{"ReadOnly", readOnlyError, sqlite3.ErrReadonly, sqlite3.ErrNoExtended(sqlite3.ErrReadonly), ErrReadOnly,
			"database is read-only: attempt to write a readonly database", false, false},
		{"CantOpen", cantOpenError, sqlite3.ErrCantOpen, sqlite3.ErrNoExtended(sqlite3.ErrCantOpen), ErrCantOpen,
			"unable to open database file: no such file or directory", false, false},
		{"Corrupt", corruptError, sqlite3.ErrCorrupt, sqlite3.ErrNoExtended(sqlite3.ErrCorrupt), ErrCorrupt,
			"database is damaged: database disk image is malformed", false, false},
		{"CorruptVTab", corruptVTabError, sqlite3.ErrCorrupt, sqlite3.ErrCorruptVTab, ErrCorrupt,
			`database is damaged: fts5: corruption found reading blob 137438953473 from table "f"`, false, false},
		{"FullPageLimit", fullError, sqlite3.ErrFull, sqlite3.ErrNoExtended(sqlite3.ErrFull), ErrDiskFull,
			"database or disk is full", false, false},
		{"ShmSizeENOSPC", shmFullError, sqlite3.ErrIoErr, sqlite3.ErrIoErrSHMSize, ErrDiskFull,
			"database or disk is full: disk I/O error: no space left on device", false, false},
		{"ForeignKey", func(t *testing.T) error { return constraintError(t, "INSERT INTO child VALUES (1, 'ghost', 0)") },
			sqlite3.ErrConstraint, sqlite3.ErrConstraintForeignKey, nil, "FOREIGN KEY constraint failed", true, false},
		{"Unique", func(t *testing.T) error { return constraintError(t, "INSERT INTO parent VALUES ('q', 'taken')") },
			sqlite3.ErrConstraint, sqlite3.ErrConstraintUnique, nil, "UNIQUE constraint failed: parent.title", false, true},
		{"PrimaryKey", func(t *testing.T) error { return constraintError(t, "INSERT INTO parent VALUES ('p', 'free')") },
			sqlite3.ErrConstraint, sqlite3.ErrConstraintPrimaryKey, nil, "UNIQUE constraint failed: parent.id", false, true},
		{"NotNull", func(t *testing.T) error { return constraintError(t, "INSERT INTO child VALUES (1, NULL, 0)") },
			sqlite3.ErrConstraint, sqlite3.ErrConstraintNotNull, nil, "NOT NULL constraint failed: child.parent", false, false},
		{"Check", func(t *testing.T) error { return constraintError(t, "INSERT INTO child VALUES (1, 'p', -1)") },
			sqlite3.ErrConstraint, sqlite3.ErrConstraintCheck, nil, "CHECK constraint failed: n >= 0", false, false},

		// Constructed: a lock held while another connection recovers the
		// WAL (no test can time it), what a full disk or quota makes
		// SQLite report without one, and I/O errors that are not a full
		// disk.
		{"BusyRecovery", func(*testing.T) error {
			return sqlite3.Error{Code: sqlite3.ErrBusy, ExtendedCode: sqlite3.ErrBusyRecovery}
		},
			sqlite3.ErrBusy, sqlite3.ErrBusyRecovery, ErrBusy, "database is locked by another connection: database is locked", false, false},
		{"ShmSizeNoErrno", func(*testing.T) error { return io(sqlite3.ErrIoErrSHMSize, 0) }, sqlite3.ErrIoErr, sqlite3.ErrIoErrSHMSize, ErrDiskFull,
			"database or disk is full: disk I/O error", false, false},
		{"WriteENOSPC", func(*testing.T) error { return io(sqlite3.ErrIoErrWrite, syscall.ENOSPC) }, sqlite3.ErrIoErr, sqlite3.ErrIoErrWrite, ErrDiskFull,
			"database or disk is full: disk I/O error: no space left on device", false, false},
		{"FsyncEDQUOT", func(*testing.T) error { return io(sqlite3.ErrIoErrFsync, syscall.EDQUOT) }, sqlite3.ErrIoErr, sqlite3.ErrIoErrFsync, ErrDiskFull,
			"database or disk is full: disk I/O error: disk quota exceeded", false, false},
		{"ShmSizeEIO", func(*testing.T) error { return io(sqlite3.ErrIoErrSHMSize, syscall.EIO) }, sqlite3.ErrIoErr, sqlite3.ErrIoErrSHMSize, nil,
			"disk I/O error: input/output error", false, false},
		{"WriteNoErrno", func(*testing.T) error { return io(sqlite3.ErrIoErrWrite, 0) }, sqlite3.ErrIoErr, sqlite3.ErrIoErrWrite, nil,
			"disk I/O error", false, false},
		{"ReadEIO", func(*testing.T) error { return io(sqlite3.ErrIoErrRead, syscall.EIO) }, sqlite3.ErrIoErr, sqlite3.ErrIoErrRead, nil,
			"disk I/O error: input/output error", false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := tt.err(t)
			code, ext, ok := Code(in)
			if !ok || code != tt.code || ext != tt.ext {
				t.Fatalf("%v: codes %d/%d (%v), want %d/%d", in, code, ext, ok, tt.code, tt.ext)
			}
			for _, in := range []error{in, fmt.Errorf("wrapped: %w", in)} {
				got := Classify(in)
				switch {
				case tt.want == nil && got != in:
					t.Errorf("Classify(%v) = %v, want it unchanged", in, got)
				case tt.want != nil && !errors.Is(got, tt.want):
					t.Errorf("Classify(%v) = %v, want it to match %v", in, got, tt.want)
				}
				var se sqlite3.Error
				if !errors.As(got, &se) || se.ExtendedCode != tt.ext {
					t.Errorf("Classify(%v) lost the driver error", in)
				}
				if Classify(got) != got {
					t.Errorf("Classify(Classify(%v)) wrapped it twice", in)
				}
				if IsForeignKey(in) != tt.foreignKey || IsUnique(in) != tt.unique {
					t.Errorf("IsForeignKey, IsUnique(%v) = %v, %v; want %v, %v", in, IsForeignKey(in), IsUnique(in), tt.foreignKey, tt.unique)
				}
				if IsBusy(in) != (tt.want == ErrBusy) || IsDiskFull(in) != (tt.want == ErrDiskFull) {
					t.Errorf("IsBusy, IsDiskFull(%v) = %v, %v", in, IsBusy(in), IsDiskFull(in))
				}
			}
			if got := Classify(in).Error(); got != tt.msg {
				t.Errorf("Classify(...).Error() = %q, want %q", got, tt.msg)
			}
		})
	}

	// An error that is not SQLite's, nil, and a message that only reads
	// like a busy one: no class.
	plain := errors.New("database is locked")
	if Classify(plain) != plain || Classify(nil) != nil {
		t.Error("Classify changed an error that is not SQLite's")
	}
	if _, _, ok := Code(plain); ok || IsBusy(plain) || IsDiskFull(plain) || IsForeignKey(plain) || IsUnique(plain) || IsBusy(nil) {
		t.Error("a plain error was classified by its text")
	}
}
