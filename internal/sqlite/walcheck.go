package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"slices"
)

// tablesSQL lists the tables of a database. Hand-written: it reads
// sqlite_master, which sqlc does not model.
const tablesSQL = "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"

// CheckWAL refuses, with [ErrForeignWAL], a -wal file that belongs to
// another database. OpenWriter runs it before its first connection;
// OpenReader does not (a read-only connection never checkpoints, so it
// cannot make the damage permanent), so a caller that reads a file without
// opening a writer first runs it once itself. SQLite
// cannot tell: the WAL header names no database, so it would replay the
// other database's pages over this one's, and the first checkpoint would
// write them into the file for good. When a non-empty -wal is present, the
// tables of the file alone (read with immutable=1, which ignores the WAL)
// are compared with the tables seen through the WAL (a read-only
// connection, which never checkpoints): a WAL that makes the sessions
// table disappear is not this database's. A WAL that cannot be compared
// (the file alone is mid-checkpoint and unreadable) is left to SQLite.
func CheckWAL(ctx context.Context, path string) error {
	fi, err := os.Stat(path + "-wal")
	if errors.Is(err, fs.ErrNotExist) || (err == nil && fi.Size() == 0) {
		return nil
	}
	if err != nil {
		return err
	}
	alone, err := tables(ctx, path, "immutable=1")
	if err != nil || !slices.Contains(alone, "sessions") {
		return nil
	}
	seen, err := tables(ctx, path, "mode=ro")
	if err != nil && !errors.Is(Classify(err), ErrCorrupt) && !errors.Is(Classify(err), ErrNotDatabase) {
		return nil
	}
	if err != nil || !slices.Contains(seen, "sessions") {
		return ErrForeignWAL
	}
	return nil
}

// tables lists the tables of the database at path opened with the given
// URI parameters, through SQLite (see the package doc on descriptors).
func tables(ctx context.Context, path, params string) ([]string, error) {
	uri, err := fileURI(path)
	if err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite3", uri+"?"+params)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	return Strings(ctx, db, tablesSQL)
}

// RowsQueryer is the many-rows side of *sql.DB, *sql.Conn and *sql.Tx.
type RowsQueryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Strings runs query, whose rows are one text column each, and returns the
// values in order (an empty, non-nil slice for no rows).
func Strings(ctx context.Context, q RowsQueryer, query string) ([]string, error) {
	rows, err := q.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}
