package migrations

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mattn/go-sqlite3"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// TestFailedMigrationLeavesNoTrace checks that a migration failing part-way
// leaves the file at the version before it with nothing of it applied.
func TestFailedMigrationLeavesNoTrace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("DuplicateTitles", func(t *testing.T) {
		t.Parallel()
		// v4's unique title index cannot be built over two equal titles.
		db := openNew(t)
		migrateTo(t, db, 3)
		dbtest.Exec(t, db,
			"INSERT INTO sessions (id, source, started_at, title) VALUES ('a', 'cli', 1.0, 'Same')",
			"INSERT INTO sessions (id, source, started_at, title) VALUES ('b', 'cli', 2.0, 'Same')",
		)
		before := snap(t, db)
		m := newMigrator(t, db, nil)

		res, err := m.Up(ctx)
		checkSQLiteError(t, err, sqlite3.ErrConstraint)
		if res.To != 3 || len(res.Changes) != 0 {
			t.Errorf("Up = %+v, want nothing done", res)
		}
		if got := versionOf(t, db); got != 3 {
			t.Errorf("version = %d, want 3", got)
		}
		if diff := cmp.Diff(before, snap(t, db), cmp.AllowUnexported(snapshot{})); diff != "" {
			t.Errorf("schema changed (-before +after):\n%s", diff)
		}

		// What 00004 tells the user to do: rename one, migrate again.
		dbtest.Exec(t, db, "UPDATE sessions SET title = 'Same #2' WHERE id = 'b'")
		upgradedOnce(t, ctx, m, 3)
	})

	t.Run("HalfWayThroughV11", func(t *testing.T) {
		t.Parallel()
		// A v10 file whose message ids are text: the v11 step drops both
		// indexes and their triggers, recreates them, and only then fails on
		// the backfill (an FTS5 rowid must be an integer).
		path := handMade(t,
			`CREATE TABLE schema_version (version INTEGER NOT NULL)`,
			`INSERT INTO schema_version (version) VALUES (10)`,
			`CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT NOT NULL, parent_session_id TEXT, started_at REAL NOT NULL)`,
			`CREATE TABLE messages (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, role TEXT NOT NULL,
				content TEXT, tool_calls TEXT, tool_name TEXT, timestamp REAL NOT NULL)`,
			`INSERT INTO messages (id, session_id, role, content, timestamp) VALUES ('m1', 's1', 'user', 'hello', 1.0)`,
			`CREATE VIRTUAL TABLE messages_fts USING fts5(content, content=messages, content_rowid=id)`,
			`CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
				INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content); END`,
		)
		db := openWriter(t, path)
		before := snap(t, db)

		_, err := newMigrator(t, db, nil).Up(ctx)
		checkSQLiteError(t, err, sqlite3.ErrMismatch)
		if got := versionOf(t, db); got != 10 {
			t.Errorf("version = %d, want 10", got)
		}
		if diff := cmp.Diff(before, snap(t, db), cmp.AllowUnexported(snapshot{})); diff != "" {
			t.Errorf("schema changed (-before +after):\n%s", diff)
		}
	})
}

// checkSQLiteError fails unless err carries a SQLite error with code.
func checkSQLiteError(t *testing.T, err error, code sqlite3.ErrNo) {
	t.Helper()
	var se sqlite3.Error
	if !errors.As(err, &se) {
		t.Fatalf("error %v, want a SQLite error", err)
	}
	if se.Code != code {
		t.Errorf("SQLite error code %d (%v), want %d", se.Code, se, code)
	}
}
