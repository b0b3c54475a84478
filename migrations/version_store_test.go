package migrations

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

func TestStatus(t *testing.T) {
	t.Parallel()
	db := openNew(t)
	migrateTo(t, db, 4)
	got, err := newMigrator(t, db, nil).Status(context.Background())
	if err != nil {
		t.Fatalf("Status: %v", err)
	}
	var want []Status
	for i, name := range dbtest.MigrationNames {
		v := int64(i + 1)
		want = append(want, Status{Version: v, Name: name, Applied: v <= 4})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Status (-want +got):\n%s", diff)
	}
}

func TestReadVersion(t *testing.T) {
	t.Parallel()

	t.Run("NoTable", func(t *testing.T) {
		t.Parallel()
		db := openNew(t)
		if got := versionOf(t, db); got != 0 {
			t.Errorf("version = %d, want 0", got)
		}
		// Reading creates nothing.
		if diff := cmp.Diff([]string{}, masterNames(t, db)); diff != "" {
			t.Errorf("objects (-want +got):\n%s", diff)
		}
	})

	t.Run("NoRow", func(t *testing.T) {
		t.Parallel()
		db := openWriter(t, handMade(t, "CREATE TABLE schema_version (version INTEGER NOT NULL)"))
		if got := versionOf(t, db); got != 0 {
			t.Errorf("version = %d, want 0", got)
		}
	})

	t.Run("OneRow", func(t *testing.T) {
		t.Parallel()
		db := openNew(t)
		migrateTo(t, db, 7)
		if got := versionOf(t, db); got != 7 {
			t.Errorf("ReadVersion = %d, want 7", got)
		}
		got, err := newMigrator(t, db, nil).Version(context.Background())
		if err != nil || got != 7 {
			t.Errorf("Version = %d, %v; want 7", got, err)
		}
		// The store keeps one row, as the original does.
		if diff := cmp.Diff([][]any{{int64(7)}}, dbtest.Rows(t, db, "SELECT version FROM schema_version")); diff != "" {
			t.Errorf("schema_version rows (-want +got):\n%s", diff)
		}
	})
}
