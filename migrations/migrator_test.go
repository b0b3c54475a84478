package migrations

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/hermesstate/hermesstate/internal/dbtest"
	"github.com/hermesstate/hermesstate/internal/sqlite"
)

// v1FTS is how v1 (and v10) declared messages_fts: external content over
// messages.content.
const v1FTS = "CREATE VIRTUAL TABLE messages_fts USING fts5(\n    content,\n    content=messages,\n    content_rowid=id\n)"

func TestUpDownUp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openNew(t)
	m := newMigrator(t, db, nil)
	if _, err := m.Up(ctx); err != nil {
		t.Fatalf("first Up: %v", err)
	}
	insertUpgradeRows(t, db)

	res, err := m.DownTo(ctx, 0)
	if err != nil {
		t.Fatalf("DownTo(0): %v", err)
	}
	if diff := cmp.Diff(downNames(Latest, 0), resultNames(res)); diff != "" {
		t.Errorf("DownTo(0) results (-want +got):\n%s", diff)
	}
	// Down never drops the version table, and SQLite never drops
	// sqlite_sequence once AUTOINCREMENT created it.
	if diff := cmp.Diff([]string{"schema_version", "sqlite_sequence"}, masterNames(t, db)); diff != "" {
		t.Errorf("objects after DownTo(0) (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([][]any{{int64(0)}}, dbtest.Rows(t, db, "SELECT count(*) FROM schema_version")); diff != "" {
		t.Errorf("schema_version rows (-want +got):\n%s", diff)
	}

	upgradedOnce(t, ctx, m, 0)
	if diff := cmp.Diff(freshSchema(t), schemaOf(t, db)); diff != "" {
		t.Errorf("schema differs from a fresh file (-fresh +got):\n%s", diff)
	}
}

// TestDownOneStepAtATime rolls a new file holding rows back from 21 to 0 and
// checks that each step restores the schema of the version before it (the
// same columns; a new file has them in v21's order, the replayed history in
// the order the versions added them), plus what no version added: the
// columns upstream added without a version, and their indexes, stay until
// their table goes (Down never touches them).
func TestDownOneStepAtATime(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h, err := loadHistory()
	if err != nil {
		t.Fatal(err)
	}
	db := openNew(t)
	migrateTo(t, db, Latest)
	insertUpgradeRows(t, db)
	m := newMigrator(t, db, nil)

	for v := Latest; v >= 1; v-- {
		res, err := m.Down(ctx)
		if err != nil {
			t.Fatalf("Down from %d: %v", v, err)
		}
		if diff := cmp.Diff(downNames(v, v-1), resultNames([]Result{res})); diff != "" {
			t.Errorf("Down from %d result (-want +got):\n%s", v, diff)
		}
		if got := versionOf(t, db); got != v-1 {
			t.Errorf("version after Down from %d = %d, want %d", v, got, v-1)
		}
		if v > 1 {
			byName := cmpopts.SortSlices(func(a, b column) bool { return a.Name < b.Name })
			if diff := cmp.Diff(plusUnversioned(t, h.after[v-1]), schemaOf(t, db), byName); diff != "" {
				t.Errorf("schema after Down from %d differs from v%d (-want +got):\n%s", v, v-1, diff)
			}
		}
		if v == 11 {
			checkV10Search(t, db)
		}
	}
	if diff := cmp.Diff([]string{"schema_version", "sqlite_sequence"}, masterNames(t, db)); diff != "" {
		t.Errorf("objects at version 0 (-want +got):\n%s", diff)
	}
	if _, err := m.Down(ctx); !errors.Is(err, ErrNoChange) {
		t.Errorf("Down at 0: error %v, want ErrNoChange", err)
	}
}

// checkV10Search checks, right after the v11 down, that the external-content
// indexes are back and hold the rows (content only, no tool fields).
func checkV10Search(t *testing.T, db *sql.DB) {
	t.Helper()
	var ftsSQL string
	if err := db.QueryRow("SELECT sql FROM sqlite_master WHERE name = 'messages_fts'").Scan(&ftsSQL); err != nil {
		t.Fatal(err)
	}
	if ftsSQL != v1FTS {
		t.Errorf("messages_fts at v10:\n%s\nwant:\n%s", ftsSQL, v1FTS)
	}
	for _, q := range []struct {
		table, match string
		want         []int64
	}{
		{"messages_fts", "Docker", []int64{1}},
		{"messages_fts", "web_search", []int64{}},
		{"messages_fts_trigram", "通信协议", []int64{4}},
	} {
		if diff := cmp.Diff(q.want, rowids(t, db, q.table, q.match)); diff != "" {
			t.Errorf("v10 %s MATCH %q (-want +got):\n%s", q.table, q.match, diff)
		}
	}
	for _, fts := range []string{"messages_fts", "messages_fts_trigram"} {
		// rank = 1 compares the rebuilt index with messages.content.
		dbtest.Exec(t, db, "INSERT INTO "+fts+"("+fts+", rank) VALUES('integrity-check', 1)")
	}
}

func TestNewerSchemaIsRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openNew(t)
	migrateTo(t, db, Latest)
	dbtest.Exec(t, db, fmt.Sprintf("UPDATE schema_version SET version = %d", Latest+1))
	before := snap(t, db)
	m := newMigrator(t, db, nil)

	calls := map[string]func() error{
		"Up":        func() error { _, err := m.Up(ctx); return err },
		"UpTo":      func() error { _, err := m.UpTo(ctx, 5); return err },
		"Down":      func() error { _, err := m.Down(ctx); return err },
		"DownTo":    func() error { _, err := m.DownTo(ctx, 0); return err },
		"DownToTen": func() error { _, err := m.DownTo(ctx, 10); return err },
	}
	for _, name := range slices.Sorted(maps.Keys(calls)) {
		if err := calls[name](); !errors.Is(err, ErrNewerSchema) {
			t.Errorf("%s: error %v, want ErrNewerSchema", name, err)
		}
	}
	if got := versionOf(t, db); got != Latest+1 {
		t.Errorf("version = %d, want %d", got, Latest+1)
	}
	if diff := cmp.Diff(before, snap(t, db), cmp.AllowUnexported(snapshot{})); diff != "" {
		t.Errorf("schema changed (-before +after):\n%s", diff)
	}
}

func TestDryRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("Up", func(t *testing.T) {
		t.Parallel()
		db := openNew(t)
		migrateTo(t, db, 6)
		before := snap(t, db)
		res, err := newMigrator(t, db, &Options{DryRun: true}).Up(ctx)
		if err != nil {
			t.Fatalf("Up: %v", err)
		}
		want := slices.Concat(
			dbtest.NewTables(true),
			dbtest.NewIndexes,
			dbtest.GatewayColumns,
			dbtest.WorkspaceColumns,
			[]string{"add column sessions.api_call_count"},
			dbtest.LateSessionColumns,
			[]string{
				"add column messages.effect_disposition",
				"add column messages.reasoning_content",
				"add column messages.codex_message_items",
			},
			dbtest.LateMessageColumns,
			dbtest.LateIndexes,
			dbtest.V11Step,
			dbtest.DataSteps,
		)
		if diff := cmp.Diff(want, res.Changes); diff != "" || res.From != 6 || res.To != Latest {
			t.Errorf("Up = %d → %d, changes (-want +got):\n%s", res.From, res.To, diff)
		}
		if got := versionOf(t, db); got != 6 {
			t.Errorf("version = %d, want 6", got)
		}
		if diff := cmp.Diff(before, snap(t, db), cmp.AllowUnexported(snapshot{})); diff != "" {
			t.Errorf("schema changed (-before +after):\n%s", diff)
		}
	})

	t.Run("UpEmptyFile", func(t *testing.T) {
		t.Parallel()
		db := openNew(t)
		res, err := newMigrator(t, db, &Options{DryRun: true}).Up(ctx)
		if err != nil {
			t.Fatalf("Up: %v", err)
		}
		if res.From != 0 || res.To != Latest || len(res.Changes) == 0 {
			t.Errorf("Up = %+v, want 0 → %d", res, Latest)
		}
		// Nothing at all may be left behind, not even the version table.
		if diff := cmp.Diff([]string{}, masterNames(t, db)); diff != "" {
			t.Errorf("objects after a dry run (-want +got):\n%s", diff)
		}
	})

	t.Run("Down", func(t *testing.T) {
		t.Parallel()
		db := openNew(t)
		migrateTo(t, db, Latest)
		before := snap(t, db)
		m := newMigrator(t, db, &Options{DryRun: true})
		res, err := m.Down(ctx)
		if err != nil {
			t.Fatalf("Down: %v", err)
		}
		if diff := cmp.Diff(downNames(Latest, Latest-1), resultNames([]Result{res})); diff != "" {
			t.Errorf("Down result (-want +got):\n%s", diff)
		}
		all, err := m.DownTo(ctx, 0)
		if err != nil {
			t.Fatalf("DownTo(0): %v", err)
		}
		if diff := cmp.Diff(downNames(Latest, 0), resultNames(all)); diff != "" {
			t.Errorf("DownTo(0) results (-want +got):\n%s", diff)
		}
		if got := versionOf(t, db); got != Latest {
			t.Errorf("version = %d, want %d", got, Latest)
		}
		if diff := cmp.Diff(before, snap(t, db), cmp.AllowUnexported(snapshot{})); diff != "" {
			t.Errorf("schema changed (-before +after):\n%s", diff)
		}
	})

	t.Run("Reconcile", func(t *testing.T) {
		t.Parallel()
		db := openNew(t)
		migrateTo(t, db, Latest)
		dbtest.Exec(t, db, "DROP INDEX idx_sessions_source")
		before := snap(t, db)
		res, err := newMigrator(t, db, &Options{DryRun: true}).Up(ctx)
		if err != nil {
			t.Fatalf("Up: %v", err)
		}
		if diff := cmp.Diff([]string{"create index idx_sessions_source"}, res.Changes); diff != "" {
			t.Errorf("Up changes (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(before, snap(t, db), cmp.AllowUnexported(snapshot{})); diff != "" {
			t.Errorf("schema changed (-before +after):\n%s", diff)
		}
	})
}

func TestInvalidCalls(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openNew(t)
	m := newMigrator(t, db, nil)

	for _, v := range []int64{0, -1, Latest + 1} {
		if _, err := m.UpTo(ctx, v); !errors.Is(err, ErrInvalidVersion) {
			t.Errorf("UpTo(%d): error %v, want ErrInvalidVersion", v, err)
		}
	}
	for _, v := range []int64{-1, Latest + 1} {
		if _, err := m.DownTo(ctx, v); !errors.Is(err, ErrInvalidVersion) {
			t.Errorf("DownTo(%d): error %v, want ErrInvalidVersion", v, err)
		}
	}
	if _, err := m.Down(ctx); !errors.Is(err, ErrNoChange) {
		t.Errorf("Down on an empty file: error %v, want ErrNoChange", err)
	}
	if _, _, err := m.Redo(ctx); !errors.Is(err, ErrNoChange) {
		t.Errorf("Redo on an empty file: error %v, want ErrNoChange", err)
	}
	if got := versionOf(t, db); got != 0 {
		t.Errorf("version = %d, want 0", got)
	}

	// A current file: Up has nothing to do and says so with no results.
	migrateTo(t, db, Latest)
	res, err := m.Up(ctx)
	if diff := cmp.Diff(UpResult{From: Latest, To: Latest}, res); diff != "" || err != nil {
		t.Errorf("Up on a current file: %v; result (-want +got):\n%s", err, diff)
	}
}

// TestUpWhileLocked runs Up while another connection holds the write lock
// for longer than the retry budget: it fails with ErrBusy and changes nothing.
func TestUpWhileLocked(t *testing.T) {
	t.Parallel()
	path := newPath(t)
	db := openImpatient(t, path)
	migrateTo(t, db, 5)
	dbtest.HoldWriteLock(t, path)
	_, err := newMigrator(t, db, &Options{Retry: Retry{Attempts: 1}}).Up(context.Background())
	if !errors.Is(err, sqlite.ErrBusy) {
		t.Errorf("Up: error %v, want ErrBusy", err)
	}
	if got := versionOf(t, db); got != 5 {
		t.Errorf("version = %d, want 5", got)
	}
}

// TestConcurrentUp migrates one new file from three connections at once, as
// a gateway, a CLI and an agent opening the same state.db do: the schema is
// created once, by whichever run takes the lock first; the others find
// nothing to do.
func TestConcurrentUp(t *testing.T) {
	t.Parallel()
	path := newPath(t)
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		counts []int
	)
	for range 3 {
		m := newMigrator(t, openWriter(t, path), nil)
		wg.Go(func() {
			res, err := m.Up(context.Background())
			if err != nil {
				t.Errorf("Up: %v", err)
			}
			mu.Lock()
			counts = append(counts, len(res.Changes))
			mu.Unlock()
		})
	}
	wg.Wait()
	slices.Sort(counts)
	if len(counts) == 3 {
		counts[2] = min(counts[2], 1)
	}
	if diff := cmp.Diff([]int{0, 0, 1}, counts); diff != "" {
		t.Errorf("migrations applied per run (-want +got):\n%s", diff)
	}
	if got := versionOf(t, openWriter(t, path)); got != Latest {
		t.Errorf("version = %d, want %d", got, Latest)
	}
}
