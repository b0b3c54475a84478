package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mattn/go-sqlite3"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/dbtest"
	"github.com/hermesstate/hermesstate/internal/sqlnum"
)

// TestWriteRetriesUnderContention: 8 goroutines on one Store and a second OS
// process append through the write helper while a third connection holds
// BEGIN IMMEDIATE for 2.5 s. Every row lands exactly once, no error escapes,
// and both processes retried.
func TestWriteRetriesUnderContention(t *testing.T) {
	t.Parallel()
	const goroutines, rowsEach = 8, 10
	ctx := context.Background()
	s, path := openStore(t, nil)
	addSession(t, s, "s", nil, 1)
	lock := dbtest.HoldWriteLock(t, path)

	child := startHelper(t, "append", "HERMESSTATE_DB="+path, "HERMESSTATE_WRITER=child", fmt.Sprintf("HERMESSTATE_ROWS=%d", rowsEach))
	if line := <-child.lines; line != "ready" {
		t.Fatalf("helper said %q, want ready", line)
	}
	// The helper opened the file while it was locked: opening a current
	// file needs no write lock. Now everyone queues behind the lock.
	errs := make(chan error, goroutines*rowsEach)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range rowsEach {
				errs <- appendLabelled(ctx, s, fmt.Sprintf("g%d-%d", g, i))
			}
		})
	}
	// Hold the lock 2.5 s, and on a loaded machine until this process has
	// seen a retry: a fixed sleep alone made the test depend on scheduling.
	time.Sleep(2500 * time.Millisecond)
	for deadline := time.Now().Add(30 * time.Second); s.Stats().Retries == 0 && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
	lock.Release()
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("append: %v", err)
		}
	}
	var childWrites, childRetries int
	if _, err := fmt.Sscanf(<-child.lines, "writes=%d retries=%d", &childWrites, &childRetries); err != nil {
		t.Fatalf("helper output: %v", err)
	}
	if err := child.cmd.Wait(); err != nil {
		t.Fatalf("helper process: %v", err)
	}

	if childWrites != rowsEach || childRetries == 0 {
		t.Errorf("helper: writes=%d retries=%d, want %d writes and at least one retry", childWrites, childRetries, rowsEach)
	}
	st := s.Stats()
	if st.Writes != goroutines*rowsEach+1 || st.Retries == 0 || st.BusyFailures != 0 {
		t.Errorf("Stats = %+v, want %d writes, some retries, no busy failures", st, goroutines*rowsEach+1)
	}
	total := dbtest.Value[int64](t, s.r, "SELECT COUNT(*) FROM messages")
	distinct := dbtest.Value[int64](t, s.r, "SELECT COUNT(DISTINCT content) FROM messages")
	if want := int64((goroutines + 1) * rowsEach); total != want || distinct != want {
		t.Errorf("messages: %d rows, %d distinct; want %d of each (every row exactly once)", total, distinct, want)
	}
}

// TestWriteGivesUpWithErrBusy: when the lock outlasts the attempts, the
// write fails with ErrBusy and nothing of it is written.
func TestWriteGivesUpWithErrBusy(t *testing.T) {
	t.Parallel()
	s, path := openStore(t, &Options{WriteAttempts: 2, RetryMinDelay: time.Millisecond, RetryMaxDelay: 2 * time.Millisecond})
	addSession(t, s, "s", nil, 1)
	lock := dbtest.HoldWriteLock(t, path)
	err := appendLabelled(context.Background(), s, "never")
	lock.Release()
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("err = %v, want ErrBusy", err)
	}
	if st := s.Stats(); st.Retries != 1 || st.BusyFailures != 1 || st.Writes != 1 {
		t.Errorf("Stats = %+v, want 1 retry, 1 busy failure, 1 write (the session)", st)
	}
	if n := dbtest.Value[int64](t, s.r, "SELECT COUNT(*) FROM messages"); n != 0 {
		t.Errorf("messages = %d, want 0", n)
	}
}

// TestWriteDoesNotRetryOtherErrors: a constraint failure or a cancelled
// context runs the closure once and leaves nothing written, even when the
// closure wrote something before failing.
func TestWriteDoesNotRetryOtherErrors(t *testing.T) {
	t.Parallel()
	missing := "no-such-session"
	for _, tt := range []struct {
		name  string
		fail  func(ctx context.Context, cancel context.CancelFunc, s *Store, tx backend.Tx) error
		check func(t *testing.T, err error)
	}{
		{
			name: "ForeignKey",
			fail: func(ctx context.Context, _ context.CancelFunc, s *Store, tx backend.Tx) error {
				_, err := s.q.MessageInsert(ctx, tx, db.MessageInsertParams{SessionID: missing, Role: "user", Timestamp: sqlnum.RealOf(2)})
				return err
			},
			check: func(t *testing.T, err error) {
				var se sqlite3.Error
				if !errors.As(err, &se) || se.ExtendedCode != sqlite3.ErrConstraintForeignKey {
					t.Errorf("err = %v, want a FOREIGN KEY constraint error", err)
				}
			},
		},
		{
			name: "ContextCancelled",
			fail: func(ctx context.Context, cancel context.CancelFunc, s *Store, tx backend.Tx) error {
				cancel()
				_, err := s.q.MessageInsert(ctx, tx, db.MessageInsertParams{SessionID: "s", Role: "user", Timestamp: sqlnum.RealOf(2)})
				return err
			},
			check: func(t *testing.T, err error) {
				if !errors.Is(err, context.Canceled) {
					t.Errorf("err = %v, want context.Canceled", err)
				}
			},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, _ := openStore(t, nil)
			addSession(t, s, "s", nil, 1)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			calls := 0
			content := "written before the failure"
			err := s.write(ctx, func(ctx context.Context, tx backend.Tx) error {
				calls++
				if _, err := s.q.MessageInsert(ctx, tx, db.MessageInsertParams{SessionID: "s", Role: "user", Content: &content, Timestamp: sqlnum.RealOf(1)}); err != nil {
					return err
				}
				return tt.fail(ctx, cancel, s, tx)
			})
			tt.check(t, err)
			if calls != 1 {
				t.Errorf("closure ran %d times, want 1", calls)
			}
			if st := s.Stats(); st.Retries != 0 || st.Writes != 1 {
				t.Errorf("Stats = %+v, want no retries and only the session's write", st)
			}
			if n := dbtest.Value[int64](t, s.r, "SELECT COUNT(*) FROM messages"); n != 0 {
				t.Errorf("messages = %d, want 0: the failed write must leave nothing", n)
			}
		})
	}
}

// TestWriteStopsWaitingWhenContextEnds: a caller whose deadline passes while
// another connection holds the lock gets its context's error, not a 15-attempt
// wait.
func TestWriteStopsWaitingWhenContextEnds(t *testing.T) {
	t.Parallel()
	s, path := openStore(t, nil)
	addSession(t, s, "s", nil, 1)
	dbtest.HoldWriteLock(t, path)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := appendLabelled(ctx, s, "late")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 2500*time.Millisecond {
		t.Errorf("returned after %v; the 1 s busy wait may run out, the retries must not", d)
	}
}
