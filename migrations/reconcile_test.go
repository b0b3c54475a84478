package migrations

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/dbtest"
	"github.com/hermesstate/hermesstate/internal/sqlite"
)

// mustReconcile runs Up on db, a file at Latest, and returns what it
// changed.
func mustReconcile(t *testing.T, db *sql.DB) []string {
	t.Helper()
	res, err := newMigrator(t, db, nil).Up(context.Background())
	if err != nil {
		t.Fatalf("Up: %v", err)
	}
	return res.Changes
}

// reconcileOnce is Up on db with a single attempt at the write lock.
func reconcileOnce(t *testing.T, db *sql.DB) ([]string, error) {
	t.Helper()
	res, err := newMigrator(t, db, &Options{Retry: Retry{Attempts: 1}}).Up(context.Background())
	return res.Changes, err
}

func TestReconcileLocking(t *testing.T) {
	t.Parallel()
	// One attempt and a short busy timeout: any wait for the write lock
	// fails fast with ErrBusy.

	t.Run("CurrentFileTakesNoLock", func(t *testing.T) {
		t.Parallel()
		path := newPath(t)
		db := openImpatient(t, path)
		migrateTo(t, db, Latest)
		dbtest.HoldWriteLock(t, path)
		changes, err := reconcileOnce(t, db)
		if err != nil || changes != nil {
			t.Errorf("Reconcile = %q, %v; want nil, nil", changes, err)
		}
	})

	t.Run("ChangesNeedTheLock", func(t *testing.T) {
		t.Parallel()
		// The counterpart of the case above: the held lock does stop a
		// Reconcile that has something to write.
		path := newPath(t)
		db := openImpatient(t, path)
		migrateTo(t, db, Latest)
		dbtest.Exec(t, db, "DROP INDEX idx_sessions_source")
		dbtest.HoldWriteLock(t, path)
		if _, err := reconcileOnce(t, db); !errors.Is(err, sqlite.ErrBusy) {
			t.Errorf("Reconcile: error %v, want ErrBusy", err)
		}
	})
}

func TestReconcileRebuildsDroppedFTS(t *testing.T) {
	t.Parallel()
	db := openNew(t)
	migrateTo(t, db, Latest)
	insertUpgradeRows(t, db)
	dbtest.Exec(t, db,
		"DROP TRIGGER messages_fts_insert",
		"DROP TRIGGER messages_fts_delete",
		"DROP TRIGGER messages_fts_update",
		"DROP TABLE messages_fts",
	)

	if diff := cmp.Diff([]string{"create full-text index messages_fts"}, mustReconcile(t, db)); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string(nil), mustReconcile(t, db)); diff != "" {
		t.Errorf("changes of a second Reconcile (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(freshSchema(t), schemaOf(t, db)); diff != "" {
		t.Errorf("schema differs from a fresh file (-fresh +got):\n%s", diff)
	}
	// The old rows are indexed with their tool fields, and the recreated
	// triggers index new ones.
	insertRow(t, db, "messages", row{"session_id": "s1", "role": "user", "content": "kubectl rollout", "timestamp": 1005.0})
	for _, q := range []struct {
		match string
		want  []int64
	}{
		{"Docker", []int64{1}},
		{"web_search", []int64{2, 3}},
		{"UNIQUESEARCHTOKEN", []int64{2}},
		{"kubectl", []int64{5}},
	} {
		if diff := cmp.Diff(q.want, rowids(t, db, "messages_fts", q.match)); diff != "" {
			t.Errorf("messages_fts MATCH %q (-want +got):\n%s", q.match, diff)
		}
	}
	dbtest.Exec(t, db, "INSERT INTO messages_fts(messages_fts, rank) VALUES('integrity-check', 1)")
}

func TestReconcileRebuildsIndexMissingATrigger(t *testing.T) {
	t.Parallel()
	db := openNew(t)
	migrateTo(t, db, Latest)
	insertUpgradeRows(t, db)
	dbtest.Exec(t, db, "DROP TRIGGER messages_fts_trigram_insert")
	// Stored while the trigger was missing: not in the trigram index.
	insertRow(t, db, "messages", row{"session_id": "s1", "role": "user", "content": "记忆断裂问题复现了", "timestamp": 1005.0})
	if diff := cmp.Diff([]int64{}, rowids(t, db, "messages_fts_trigram", "记忆断裂")); diff != "" {
		t.Fatalf("trigram index before Reconcile (-want +got):\n%s", diff)
	}

	if diff := cmp.Diff([]string{"rebuild full-text index messages_fts_trigram"}, mustReconcile(t, db)); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(freshSchema(t), schemaOf(t, db)); diff != "" {
		t.Errorf("schema differs from a fresh file (-fresh +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int64{5}, rowids(t, db, "messages_fts_trigram", "记忆断裂")); diff != "" {
		t.Errorf("trigram MATCH 记忆断裂 (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int64{4}, rowids(t, db, "messages_fts_trigram", "通信协议")); diff != "" {
		t.Errorf("trigram MATCH 通信协议 (-want +got):\n%s", diff)
	}
	// Rebuilt, not appended to: one entry per message.
	if diff := cmp.Diff([][]any{{int64(5)}}, dbtest.Rows(t, db, "SELECT count(*) FROM messages_fts_trigram")); diff != "" {
		t.Errorf("trigram rows (-want +got):\n%s", diff)
	}
}

func TestReconcileAddsMissingColumn(t *testing.T) {
	t.Parallel()
	db := openNew(t)
	migrateTo(t, db, Latest)
	insertUpgradeRows(t, db)
	// A v11 sessions table without title (its index goes first: SQLite
	// cannot drop an indexed column).
	dbtest.Exec(t, db,
		"DROP INDEX idx_sessions_title_unique",
		"ALTER TABLE sessions DROP COLUMN title",
	)

	want := []string{"add column sessions.title", "create index idx_sessions_title_unique"}
	if diff := cmp.Diff(want, mustReconcile(t, db)); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	got := schemaOf(t, db)
	cols := got.Columns["sessions"]
	if diff := cmp.Diff(column{Name: "title", Type: "TEXT"}, cols[len(cols)-1]); diff != "" {
		t.Errorf("last sessions column (-want +got):\n%s", diff)
	}
	fresh := freshSchema(t)
	if diff := cmp.Diff(fresh.Objects, got.Objects); diff != "" {
		t.Errorf("objects differ from a fresh file (-fresh +got):\n%s", diff)
	}
	if diff := cmp.Diff([][]any{{"s1", nil}}, dbtest.Rows(t, db, "SELECT id, title FROM sessions")); diff != "" {
		t.Errorf("sessions (-want +got):\n%s", diff)
	}
}

// TestNoReconcile: with Options.NoReconcile, Up leaves a file at Latest
// as it is, missing index and all.
func TestNoReconcile(t *testing.T) {
	t.Parallel()
	db := openNew(t)
	migrateTo(t, db, Latest)
	dbtest.Exec(t, db, "DROP INDEX idx_sessions_source")
	before := snap(t, db)
	res, err := newMigrator(t, db, &Options{NoReconcile: true}).Up(context.Background())
	if diff := cmp.Diff(UpResult{From: Latest, To: Latest}, res); diff != "" || err != nil {
		t.Errorf("Up: %v; result (-want +got):\n%s", err, diff)
	}
	if diff := cmp.Diff(before, snap(t, db), cmp.AllowUnexported(snapshot{})); diff != "" {
		t.Errorf("schema changed (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"create index idx_sessions_source"}, mustReconcile(t, db)); diff != "" {
		t.Errorf("changes without NoReconcile (-want +got):\n%s", diff)
	}
}

// TestReconcileConcurrent reconciles one file from three connections at once:
// the index is rebuilt once and filled once.
func TestReconcileConcurrent(t *testing.T) {
	t.Parallel()
	path := newPath(t)
	db := openWriter(t, path)
	migrateTo(t, db, Latest)
	insertUpgradeRows(t, db)
	dbtest.Exec(t, db, "DROP TABLE messages_fts")

	var (
		wg  sync.WaitGroup
		mu  sync.Mutex
		all [][]string
	)
	for _, w := range []*sql.DB{db, openWriter(t, path), openWriter(t, path)} {
		wg.Go(func() {
			res, err := newMigrator(t, w, nil).Up(context.Background())
			if err != nil {
				t.Errorf("Up: %v", err)
			}
			changes := res.Changes
			mu.Lock()
			all = append(all, changes)
			mu.Unlock()
		})
	}
	wg.Wait()
	slices.SortFunc(all, func(a, b []string) int { return len(a) - len(b) })
	want := [][]string{nil, nil, {"create full-text index messages_fts"}}
	if diff := cmp.Diff(want, all); diff != "" {
		t.Errorf("changes per connection (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([][]any{{int64(4)}}, dbtest.Rows(t, db, "SELECT count(*) FROM messages_fts")); diff != "" {
		t.Errorf("messages_fts rows (-want +got):\n%s", diff)
	}
}
