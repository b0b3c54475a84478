package migrations

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/hermesstate/hermesstate/internal/dbtest"
	"github.com/hermesstate/hermesstate/internal/sqlite"
)

// newPath returns the path of a state.db that does not exist yet, in a
// directory of its own.
func newPath(t *testing.T) string {
	t.Helper()
	return filepath.Join(t.TempDir(), "state.db")
}

// openWriter opens path the way the store does and closes it when the test
// ends.
func openWriter(t *testing.T, path string) *sql.DB {
	t.Helper()
	return openWriterWith(t, path, sqlite.Config{Retry: sqlite.DefaultRetry()})
}

// openWriterWith is openWriter with a configuration of the test's own.
func openWriterWith(t *testing.T, path string, c sqlite.Config) *sql.DB {
	t.Helper()
	db, err := sqlite.OpenWriter(context.Background(), path, c)
	if err != nil {
		t.Fatalf("OpenWriter(%s): %v", path, err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("close %s: %v", path, err)
		}
	})
	return db
}

// openImpatient opens path like openWriter but waits only 10 ms for a lock
// inside SQLite, so a test that runs into a held lock fails fast.
func openImpatient(t *testing.T, path string) *sql.DB {
	t.Helper()
	return openWriterWith(t, path, sqlite.Config{BusyTimeout: 10 * time.Millisecond, Retry: sqlite.DefaultRetry()})
}

// openNew opens a new, empty state.db.
func openNew(t *testing.T) *sql.DB {
	t.Helper()
	return openWriter(t, newPath(t))
}

// newMigrator returns a Migrator for db; nil opts are the defaults.
func newMigrator(t *testing.T, db *sql.DB, opts *Options) *Migrator {
	t.Helper()
	m, err := New(db, opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return m
}

// migrateTo replays migrations 1…v on db (v = 0 leaves it alone).
func migrateTo(t *testing.T, db *sql.DB, v int64) {
	t.Helper()
	if v == 0 {
		return
	}
	if _, err := newMigrator(t, db, nil).UpTo(context.Background(), v); err != nil {
		t.Fatalf("UpTo(%d): %v", v, err)
	}
}

// up is what the store does on open: Up, which reconciles. It returns Up's
// result.
func up(t *testing.T, db *sql.DB) UpResult {
	t.Helper()
	res, err := newMigrator(t, db, nil).Up(context.Background())
	if err != nil {
		t.Fatalf("Up: %v", err)
	}
	return res
}

// upTo runs UpTo(v) on db.
func upTo(t *testing.T, db *sql.DB, v int64) UpResult {
	t.Helper()
	res, err := newMigrator(t, db, nil).UpTo(context.Background(), v)
	if err != nil {
		t.Fatalf("UpTo(%d): %v", v, err)
	}
	return res
}

// upgradedOnce runs m.Up on a file at version from and checks that it
// went to Latest the original's way (changes, no goose migration) and that
// a second Up finds nothing to do.
func upgradedOnce(t *testing.T, ctx context.Context, m *Migrator, from int64) UpResult {
	t.Helper()
	res, err := m.Up(ctx)
	if err != nil {
		t.Fatalf("Up: %v", err)
	}
	if res.From != from || res.To != Latest || len(res.Migrations) != 0 || len(res.Changes) == 0 {
		t.Errorf("Up = %+v, want %d → %d with changes and no goose migration", res, from, Latest)
	}
	again, err := m.Up(ctx)
	if err != nil {
		t.Fatalf("second Up: %v", err)
	}
	if again.From != Latest || again.To != Latest || len(again.Changes) != 0 {
		t.Errorf("second Up = %+v, want nothing to do", again)
	}
	return res
}

// handMade writes a legacy file the way the tests of the original do: plain
// statements on a plain connection (rollback journal, no foreign keys), then
// closed, so the file is later opened like any file the original left behind.
func handMade(t *testing.T, stmts ...string) string {
	t.Helper()
	path := newPath(t)
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	dbtest.Exec(t, db, stmts...)
	return path
}

// versionOf reads the schema version of db.
func versionOf(t *testing.T, db *sql.DB) int64 {
	t.Helper()
	v, err := ReadVersion(context.Background(), db)
	if err != nil {
		t.Fatalf("ReadVersion: %v", err)
	}
	return v
}

// resultNames returns "<direction> <name>" for each result: what a
// test can state exactly (durations vary).
func resultNames(res []Result) []string {
	out := []string{}
	for _, r := range res {
		dir := r.Direction
		if r.Adopted {
			dir = "adopted"
		}
		out = append(out, dir+" "+r.Name)
	}
	return out
}

// adoptedNames is what Up reports for migrations from…to it adopted.
func adoptedNames(from, to int64) []string {
	out := []string{}
	for v := from; v <= to; v++ {
		out = append(out, "adopted "+dbtest.MigrationNames[v-1])
	}
	return out
}

// upNames is what Up reports when it applies migrations from…to.
func upNames(from, to int64) []string {
	out := []string{}
	for v := from; v <= to; v++ {
		out = append(out, "up "+dbtest.MigrationNames[v-1])
	}
	return out
}

// downNames is what a down from version from to version to (exclusive)
// reports.
func downNames(from, to int64) []string {
	out := []string{}
	for v := from; v > to; v-- {
		out = append(out, "down "+dbtest.MigrationNames[v-1])
	}
	return out
}

// objectView is a schema object as the tests compare it.
type objectView struct {
	Type string
	SQL  string // empty for ordinary tables, compared by their columns
}

// schemaView is a snapshot in comparable form: ordinary tables by their
// columns (files altered column by column differ from freshly created ones in
// CREATE TABLE text only), everything else by its exact SQL.
type schemaView struct {
	Columns map[string][]column
	Objects map[string]objectView
}

// schemaOf reads the schema of q.
func schemaOf(t *testing.T, q querier) schemaView {
	t.Helper()
	return viewOf(snap(t, q))
}

// snap is the full snapshot of q, table SQL included; compare it with
// cmp.AllowUnexported(snapshot{}).
func snap(t *testing.T, q querier) snapshot {
	t.Helper()
	s, err := takeSnapshot(context.Background(), q)
	if err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	return s
}

// viewOf turns a snapshot into a schemaView.
func viewOf(s snapshot) schemaView {
	v := schemaView{Columns: s.columns, Objects: map[string]objectView{}}
	for name, o := range s.objects {
		ov := objectView{Type: o.Type, SQL: o.SQL}
		if o.Type == "table" {
			ov.SQL = ""
		}
		v.Objects[name] = ov
	}
	return v
}

// freshSchema is the schema of a new file migrated to Latest.
func freshSchema(t *testing.T) schemaView {
	t.Helper()
	db := openNew(t)
	migrateTo(t, db, Latest)
	return schemaOf(t, db)
}

// rowids runs a MATCH on an FTS table and returns the matching rowids in
// order.
func rowids(t *testing.T, db *sql.DB, table, match string) []int64 {
	t.Helper()
	// The table name comes from the test itself.
	return dbtest.Values[int64](t, db, "SELECT rowid FROM "+quoteIdent(table)+" WHERE "+quoteIdent(table)+" MATCH ? ORDER BY rowid", match)
}

// columnNames lists a table's columns in order.
func columnNames(t *testing.T, db *sql.DB, table string) []string {
	t.Helper()
	return dbtest.Values[string](t, db, "SELECT name FROM pragma_table_info(?) ORDER BY cid", table)
}

// masterNames lists the names in sqlite_master, sorted.
func masterNames(t *testing.T, db *sql.DB) []string {
	t.Helper()
	return dbtest.Values[string](t, db, "SELECT name FROM sqlite_master ORDER BY name")
}

// unversioned is what a new file has and the replayed migrations do not
// build: the columns upstream added without a version of their own
// (upstream-v21.md §1.4) and the indexes over them. Up adds them (the
// reconcile); UpTo below Latest and Down leave them as a file has them.
func unversioned(t *testing.T) addition {
	t.Helper()
	h, err := loadHistory()
	if err != nil {
		t.Fatal(err)
	}
	d, err := loadDeclared()
	if err != nil {
		t.Fatal(err)
	}
	replayed := h.after[Latest]
	var add addition
	for _, table := range d.full.tables {
		for _, c := range d.full.columns[table] {
			if _, ok := replayed.column(table, c.Name); !ok {
				add.columns = append(add.columns, tableColumn{table: table, col: c})
			}
		}
	}
	for _, name := range d.full.order {
		if _, ok := replayed.objects[name]; !ok {
			add.objects = append(add.objects, d.full.objects[name])
		}
	}
	return add
}

// plusUnversioned is the view of s with the unversioned columns and
// indexes of the tables s has: a new file rolled back to s's version.
func plusUnversioned(t *testing.T, s snapshot) schemaView {
	t.Helper()
	v := viewOf(s)
	cols := map[string][]column{}
	for table, c := range v.Columns {
		cols[table] = append([]column(nil), c...)
	}
	add := unversioned(t)
	for _, tc := range add.columns {
		if _, ok := cols[tc.table]; ok {
			cols[tc.table] = append(cols[tc.table], tc.col)
		}
	}
	for _, o := range add.objects {
		if _, ok := cols[o.Table]; ok {
			v.Objects[o.Name] = objectView{Type: o.Type, SQL: o.SQL}
		}
	}
	v.Columns = cols
	return v
}
