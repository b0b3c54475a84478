package schema_test

import (
	"context"
	"database/sql"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/dbtest"
	"github.com/hermesstate/hermesstate/internal/sqlite"
	"github.com/hermesstate/hermesstate/migrations"
	"github.com/hermesstate/hermesstate/schema"
)

var update = flag.Bool("update", false, "rewrite schema.sql from the migrations instead of comparing")

// TestSchemaMatchesMigrations is the drift check that make verify runs:
// schema.sql must be exactly what the migrations produce.
func TestSchemaMatchesMigrations(t *testing.T) {
	t.Parallel()
	got, err := migrations.GenerateSchema(context.Background())
	if err != nil {
		t.Fatalf("GenerateSchema: %v", err)
	}
	if *update {
		if err := os.WriteFile("schema.sql", []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if diff := cmp.Diff(schema.SQL, got); diff != "" {
		t.Errorf("schema/schema.sql is stale: run make generate (or go test -tags sqlite_fts5 ./schema -update)\n(-schema.sql +migrations):\n%s", diff)
	}
}

// TestSchemaLoadsIntoEmptyDatabase runs schema.sql on a new database and
// checks that it creates exactly what the migrations create, FTS5 shadow
// tables and automatic indexes included.
func TestSchemaLoadsIntoEmptyDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	mem := loadSchema(t)

	path := filepath.Join(t.TempDir(), "state.db")
	file, err := sqlite.OpenWriter(ctx, path, sqlite.Config{Retry: sqlite.DefaultRetry()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { file.Close() })
	m, err := migrations.New(file, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Up(ctx); err != nil {
		t.Fatalf("Up: %v", err)
	}

	want := master(t, file)
	if len(want) == 0 {
		t.Fatal("migrated file has an empty sqlite_master")
	}
	if diff := cmp.Diff(want, master(t, mem)); diff != "" {
		t.Errorf("sqlite_master (-migrated +schema.sql):\n%s", diff)
	}
}

// master lists sqlite_master as "type name on table: sql" lines, sorted.
func master(t *testing.T, db *sql.DB) []string {
	t.Helper()
	return dbtest.Values[string](t, db, "SELECT type || ' ' || name || ' on ' || tbl_name || ': ' || COALESCE(sql, '') FROM sqlite_master ORDER BY type, name")
}

// TestSchemaIsUpstreamsFreshDDL: schema.sql, run on an empty database,
// gives exactly the sqlite_master of testdata/upstream/state-v21.db, the file
// upstream Hermes c2a3b9ce5 creates: the same statements in the same order.
func TestSchemaIsUpstreamsFreshDDL(t *testing.T) {
	t.Parallel()
	mem := loadSchema(t)
	copied := dbtest.CopyFile(t, dbtest.Testdata("upstream", "state-v21.db"), filepath.Join(t.TempDir(), "state-v21.db"))
	fresh, err := sql.Open("sqlite3", "file:"+copied+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fresh.Close() })
	const byRowid = "SELECT type, name, tbl_name, COALESCE(sql, '') FROM sqlite_master ORDER BY rowid"
	if diff := cmp.Diff(dbtest.Rows(t, fresh, byRowid), dbtest.Rows(t, mem, byRowid)); diff != "" {
		t.Errorf("sqlite_master (-upstream +schema.sql):\n%s", diff)
	}
}

// loadSchema runs schema.sql on a new in-memory database.
func loadSchema(t *testing.T) *sql.DB {
	t.Helper()
	mem, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mem.Close() })
	// Every new connection to :memory: is another, empty database.
	mem.SetMaxOpenConns(1)
	mem.SetConnMaxLifetime(0)
	mem.SetConnMaxIdleTime(0)
	if _, err := mem.Exec(schema.SQL); err != nil {
		t.Fatalf("execute schema.sql: %v", err)
	}
	return mem
}
