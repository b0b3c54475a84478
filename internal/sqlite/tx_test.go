package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/hermesstate/hermesstate/internal/dbtest"
	"github.com/mattn/go-sqlite3"
)

func count(t *testing.T, db *sql.DB) int {
	t.Helper()
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM t").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func newTable(t *testing.T) (*sql.DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state.db")
	db := openWriter(t, path, Config{})
	if _, err := db.Exec("CREATE TABLE t (x INTEGER PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	return db, path
}

func TestWriteTxRetriesWholeClosureUntilLockFrees(t *testing.T) {
	t.Parallel()
	db, path := newTable(t)
	dbtest.HoldWriteLockFor(t, path, 1500*time.Millisecond)
	calls, retries := 0, 0
	r := DefaultRetry()
	r.OnRetry = func(int, error) { retries++ }
	start := time.Now()
	err := WriteTx(context.Background(), db, r, func(ctx context.Context, tx *sql.Tx) error {
		calls++
		_, err := tx.ExecContext(ctx, "INSERT INTO t VALUES (1)")
		return err
	})
	if err != nil {
		t.Fatalf("WriteTx: %v", err)
	}
	if retries < 1 || time.Since(start) < time.Second {
		t.Errorf("retries = %d after %v, want at least one retry while the lock was held", retries, time.Since(start))
	}
	// BEGIN IMMEDIATE fails before fn runs, so fn ran exactly once.
	if calls != 1 {
		t.Errorf("fn ran %d times, want 1", calls)
	}
	if n := count(t, db); n != 1 {
		t.Errorf("rows = %d, want 1", n)
	}
}

func TestWriteTxGivesUpWithErrBusy(t *testing.T) {
	t.Parallel()
	db, path := newTable(t)
	dbtest.HoldWriteLockFor(t, path, 5*time.Second)
	r := Retry{Attempts: 2, MinDelay: time.Millisecond, MaxDelay: time.Millisecond}
	err := WriteTx(context.Background(), db, r, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "INSERT INTO t VALUES (1)")
		return err
	})
	var se sqlite3.Error
	if !errors.Is(err, ErrBusy) || !errors.As(err, &se) || se.Code != sqlite3.ErrBusy {
		t.Fatalf("err = %v, want ErrBusy wrapping SQLITE_BUSY", err)
	}
}

func TestWriteTxDoesNotRetryOtherErrors(t *testing.T) {
	t.Parallel()
	sentinel := errors.New("caller gave up")
	for _, tt := range []struct {
		name   string
		second string // statement after a good insert
		goErr  error  // or a Go error instead
		isCode sqlite3.ErrNo
	}{
		{name: "Constraint", second: "INSERT INTO t VALUES (1)", isCode: sqlite3.ErrConstraint},
		{name: "GoError", goErr: sentinel},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			db, _ := newTable(t)
			calls := 0
			err := WriteTx(context.Background(), db, DefaultRetry(), func(ctx context.Context, tx *sql.Tx) error {
				calls++
				if _, err := tx.ExecContext(ctx, "INSERT INTO t VALUES (1)"); err != nil {
					return err
				}
				if tt.goErr != nil {
					return tt.goErr
				}
				_, err := tx.ExecContext(ctx, tt.second)
				return err
			})
			if calls != 1 {
				t.Errorf("fn ran %d times, want 1", calls)
			}
			if tt.goErr != nil && !errors.Is(err, tt.goErr) {
				t.Errorf("err = %v, want %v", err, tt.goErr)
			}
			var se sqlite3.Error
			if tt.goErr == nil && (!errors.As(err, &se) || se.Code != tt.isCode) {
				t.Errorf("err = %v, want SQLite code %v", err, tt.isCode)
			}
			if n := count(t, db); n != 0 {
				t.Errorf("rows = %d, want 0: the failed transaction must leave nothing", n)
			}
		})
	}
}
