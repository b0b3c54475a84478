// Package dbtest holds what the test suites of several packages share:
// reading query results into Go values, and building databases from the
// module's testdata. Only _test.go files import it.
//
// It must not import any package of ours (every package's tests use it, so
// it would become a cycle) and must not hold a test's assertions: only
// helpers that more than one package would otherwise write again, each once.
package dbtest

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	// Hand-built files are written through the plain driver.
	_ "github.com/mattn/go-sqlite3"
)

// MigrationNames are the embedded migrations, version i at index i-1,
// written out so that a renamed or missing file fails the tests that list
// migrations.
var MigrationNames = []string{
	"00001_initial_schema.sql",
	"00002_messages_finish_reason.sql",
	"00003_sessions_title.sql",
	"00004_sessions_title_unique.sql",
	"00005_sessions_billing.sql",
	"00006_messages_reasoning.sql",
	"00007_messages_reasoning_content.sql",
	"00008_sessions_api_call_count.sql",
	"00009_messages_codex_message_items.sql",
	"00010_messages_fts_trigram.sql",
	"00011_fts_inline_tool_fields.sql",
	"00012_messages_platform_message_id.sql",
	"00013_messages_observed.sql",
	"00014_compression_locks.sql",
	"00015_sessions_source_id_index.sql",
	"00016_delegate_sessions.go",
	"00017_sessions_gateway_peer.sql",
	"00018_sessions_gateway_metadata.go",
	"00019_gateway_routing.sql",
	"00020_session_model_usage.go",
	"00021_async_delegations.sql",
}

// Queryer is *sql.DB, *sql.Conn or *sql.Tx.
type Queryer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Values runs a query returning one column and scans every row into a T. It
// returns an empty (not nil) slice when there are no rows.
func Values[T any](t testing.TB, q Queryer, query string, args ...any) []T {
	t.Helper()
	rows, err := q.QueryContext(context.Background(), query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		var v T
		if err := rows.Scan(&v); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return out
}

// Value runs a query that must return exactly one row of one column.
func Value[T any](t testing.TB, q Queryer, query string, args ...any) T {
	t.Helper()
	vs := Values[T](t, q, query, args...)
	if len(vs) != 1 {
		t.Fatalf("%s: %d rows, want 1", query, len(vs))
	}
	return vs[0]
}

// Rows runs a query and returns every row as its column values, as the
// driver returns them ([]byte values copied), for comparing table contents
// byte for byte. It returns an empty (not nil) slice when there are no rows.
func Rows(t testing.TB, q Queryer, query string, args ...any) [][]any {
	t.Helper()
	rows, err := q.QueryContext(context.Background(), query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	out := [][]any{}
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		for i, v := range vals {
			if b, ok := v.([]byte); ok {
				vals[i] = append([]byte(nil), b...)
			}
		}
		out = append(out, vals)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return out
}

// Exec runs each statement (a statement may be a whole script).
func Exec(t testing.TB, q Queryer, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := q.ExecContext(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// Testdata returns the path of elem inside the module's testdata directory.
func Testdata(elem ...string) string {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..", "testdata")
	return filepath.Join(append([]string{root}, elem...)...)
}

// CopyFixture copies testdata/name, a database the Python original wrote,
// into t.TempDir() and returns the copy's path: fixtures are never opened in
// place, so no test can change them.
func CopyFixture(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(Testdata(name))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// LegacyFile builds testdata/legacy/name, one of the hand-written legacy
// databases of the original's tests, into a new file through a plain
// connection (no WAL, no migrations) and returns its path.
func LegacyFile(t testing.TB, name string) string {
	t.Helper()
	script, err := os.ReadFile(Testdata("legacy", name))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "state.db")
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	Exec(t, db, string(script))
	return path
}
