package migrations

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// TestNewFileIsTheOriginals: a file Up creates is the file the v11
// original creates (testdata/state-v11-fresh.db, written by it):
// sqlite_master by rowid, PRAGMA table_xinfo of every table, and every row,
// byte for byte.
func TestNewFileIsTheOriginals(t *testing.T) {
	t.Parallel()
	path := newPath(t)
	res, err := newMigrator(t, openWriter(t, path), nil).Up(context.Background())
	if err != nil {
		t.Fatalf("Up: %v", err)
	}
	if res.From != 0 || res.To != Latest || len(res.Migrations) != 0 {
		t.Errorf("Up = %+v, want 0 → %d without goose migrations", res, Latest)
	}
	want := dbtest.ReadLayout(t, dbtest.CopyFixture(t, "state-v11-fresh.db"))
	if diff := cmp.Diff(want, dbtest.ReadLayout(t, path)); diff != "" {
		t.Errorf("new file differs from the original's (-original +ours):\n%s", diff)
	}
	if got := dbtest.Value[int64](t, openWriter(t, path), "SELECT version FROM schema_version"); got != Latest {
		t.Errorf("version %d, want %d", got, Latest)
	}
	// goose's history: every version applied.
	st, err := newMigrator(t, openWriter(t, path), nil).Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range st {
		if s.Version != int64(i+1) || s.Name != dbtest.MigrationNames[i] || !s.Applied {
			t.Errorf("status %d = %+v, want %s applied", i, s, dbtest.MigrationNames[i])
		}
	}
	if len(st) != int(Latest) {
		t.Errorf("%d statuses, want %d", len(st), Latest)
	}
}

// TestLegacyFilesBecomeTheOriginals: every legacy file, migrated by Up,
// ends exactly as the v11 original (289cc4763) leaves it: the golden
// layouts in testdata/golden were recorded by running the original on
// copies of the same files (testdata/README.md).
func TestLegacyFilesBecomeTheOriginals(t *testing.T) {
	t.Parallel()
	cases := []struct {
		golden string
		file   func(t *testing.T) string
	}{
		{"history-state-v1", fixture("history/state-v1.db")},
		{"history-state-v4", fixture("history/state-v4.db")},
		{"history-state-v5", fixture("history/state-v5.db")},
		{"history-state-v6", fixture("history/state-v6.db")},
		{"history-state-v7-renumbered", fixture("history/state-v7-renumbered.db")},
		{"state-v1", fixture("state-v1.db")},
		{"state-v9", fixture("state-v9.db")},
		{"legacy-v2", legacy("v2.sql")},
		{"legacy-v7-renumbered", legacy("v7-renumbered.sql")},
		{"legacy-v10-external-fts", legacy("v10-external-fts.sql")},
	}
	for _, c := range cases {
		t.Run(c.golden, func(t *testing.T) {
			t.Parallel()
			path := c.file(t)
			res, err := newMigrator(t, openWriter(t, path), nil).Up(context.Background())
			if err != nil {
				t.Fatalf("Up: %v", err)
			}
			if res.To != Latest || len(res.Changes) == 0 {
				t.Errorf("Up = %+v, want changes up to %d", res, Latest)
			}
			if diff := cmp.Diff(dbtest.GoldenLayout(t, c.golden), dbtest.ReadLayout(t, path)); diff != "" {
				t.Errorf("differs from what the original makes of it (-original +ours):\n%s", diff)
			}
		})
	}
}

// fixture copies testdata/name.
func fixture(name string) func(t *testing.T) string {
	return func(t *testing.T) string {
		dst := filepath.Join(t.TempDir(), "state.db")
		return dbtest.CopyFile(t, dbtest.Testdata(name), dst)
	}
}

// legacy builds testdata/legacy/name.
func legacy(name string) func(t *testing.T) string {
	return func(t *testing.T) string { return dbtest.LegacyFile(t, name) }
}
