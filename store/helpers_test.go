package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// openStore opens a store on a new file in t.TempDir() and closes it when the
// test ends.
func openStore(t testing.TB, opts *Options) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state.db")
	return openAt(t, path, opts), path
}

// openAt opens a store on path and closes it when the test ends.
func openAt(t testing.TB, path string, opts *Options) *Store {
	t.Helper()
	s, err := Open(context.Background(), path, opts)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// rawDB opens path with no setup at all, the way a hand-written legacy file
// or another tool would.
func rawDB(t testing.TB, path string) *sql.DB {
	t.Helper()
	d, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	d.SetMaxOpenConns(1)
	t.Cleanup(func() { d.Close() })
	return d
}

// columns returns a table's column names in order.
func columns(t testing.TB, q db.DBTX, table string) []string {
	t.Helper()
	return dbtest.Values[string](t, q, "SELECT name FROM pragma_table_info(?) ORDER BY cid", table)
}

// schemaRows returns every sqlite_master row as "type name: sql", sorted.
func schemaRows(t testing.TB, q db.DBTX) []string {
	t.Helper()
	return dbtest.Values[string](t, q, "SELECT type || ' ' || name || ': ' || COALESCE(sql, '') FROM sqlite_master ORDER BY type, name")
}

// addSession inserts a session through the write helper.
func addSession(t testing.TB, s *Store, id string, parent *string, startedAt float64) {
	t.Helper()
	err := s.write(context.Background(), func(ctx context.Context, tx db.DBTX) error {
		_, err := s.q.SessionCreate(ctx, tx, db.SessionCreateParams{ID: id, Source: "cli", ParentSessionID: parent, StartedAt: startedAt})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// dbtx is the generated package's DBTX: *sql.DB, *sql.Conn or *sql.Tx.
type dbtx = db.DBTX
