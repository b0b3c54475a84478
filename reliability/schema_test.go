package reliability

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/dbtest"
	"github.com/hermesstate/hermesstate/internal/sqlite"
	"github.com/hermesstate/hermesstate/migrations"
)

// schemaDump describes a database's schema as sorted text lines: every
// sqlite_master object (type, name, table and SQL, FTS5 shadow tables
// included) and every column of every table (pragma_table_info), so that
// two files with the same schema give the same lines.
func schemaDump(t *testing.T, q dbtest.Queryer) []string {
	t.Helper()
	// Hand-written: a test reads the catalogue as it is, not through sqlc.
	lines := dbtest.Values[string](t, q,
		"SELECT type || ' ' || name || ' on ' || tbl_name || ': ' || COALESCE(sql, '') FROM sqlite_master ORDER BY 1")
	for _, table := range dbtest.Values[string](t, q, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") {
		for _, r := range dbtest.Rows(t, q,
			`SELECT cid, name, type, "notnull", COALESCE(dflt_value, 'NULL'), pk FROM pragma_table_info(?) ORDER BY cid`, table) {
			lines = append(lines, fmt.Sprintf("column %s.%v", table, r))
		}
	}
	return lines
}

var references struct {
	sync.Mutex
	dumps map[[2]int64][]string
}

// referenceSchema returns the schemaDump of a file built at version from
// by the replayed migrations (0: a new file) and then migrated to exactly
// version v with package migrations, built once per run and pair. The
// way to 11 is the original's, which appends the columns a file lacks, so
// the schema at 11 depends on where the file started.
func referenceSchema(t *testing.T, from, v int64) []string {
	t.Helper()
	references.Lock()
	defer references.Unlock()
	key := [2]int64{min(from, v), v}
	if d, ok := references.dumps[key]; ok {
		return d
	}
	ctx := context.Background()
	w, err := sqlite.OpenWriter(ctx, filepath.Join(t.TempDir(), fmt.Sprintf("v%d.db", v)), sqlite.Config{Retry: sqlite.DefaultRetry()})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, step := range []int64{key[0], v} {
		if step == 0 {
			continue
		}
		m, err := migrations.New(w, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.UpTo(ctx, step); err != nil {
			t.Fatalf("migrate a reference file to v%d: %v", step, err)
		}
	}
	if references.dumps == nil {
		references.dumps = map[[2]int64][]string{}
	}
	references.dumps[key] = schemaDump(t, w)
	return references.dumps[key]
}

// checkSchemaIsVersion fails the test unless the schema in the file is
// exactly the schema of the version its schema_version records (one row):
// a migration was applied whole or not at all. It returns that version.
// Every file the tests check has a schema_version table (v1 and later).
func checkSchemaIsVersion(t *testing.T, q dbtest.Queryer) int64 {
	t.Helper()
	return checkSchemaIsVersionFrom(t, q, 0)
}

// checkSchemaIsVersionFrom is checkSchemaIsVersion for a file the replayed
// migrations built at version from, then migrated.
func checkSchemaIsVersionFrom(t *testing.T, q dbtest.Queryer, from int64) int64 {
	t.Helper()
	v := dbtest.Value[int64](t, q, "SELECT COALESCE((SELECT MAX(version) FROM schema_version), 0)")
	if n := dbtest.Value[int64](t, q, "SELECT COUNT(*) FROM schema_version"); n != 1 {
		t.Errorf("schema_version holds %d rows, want 1", n)
	}
	if diff := cmp.Diff(referenceSchema(t, from, v), schemaDump(t, q)); diff != "" {
		t.Errorf("schema of a file at version %d differs from a file migrated to exactly v%d (-want +got):\n%s", v, v, diff)
	}
	return v
}
