package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mattn/go-sqlite3"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/dbtest"
	"github.com/hermesstate/hermesstate/internal/sqlnum"
)

// errRefused is the Go error the test fns fail with.
var errRefused = errors.New("refused by the test")

// TestGroupCommitFailedWriteFailsOnlyItsCaller: seven writes queued behind
// a held one share one transaction; three fail after writing (a Go error,
// a FOREIGN KEY error from SQLite, a ctx cancelled half way) and one is
// refused before writing. Only their callers fail; the file holds exactly
// the four others, in arrival order, with their counters, committed in one
// transaction.
func TestGroupCommitFailedWriteFailsOnlyItsCaller(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, nil)
	mustCreate(t, s, NewSession{ID: "s", Source: "cli"})
	before := s.Stats()
	release := holdWriter(t, s)
	goError := func() error {
		return s.write(context.Background(), func(ctx context.Context, tx backend.Tx) error {
			if err := insertLabel(ctx, s, tx, "s", "go error"); err != nil {
				return err
			}
			return errRefused
		})
	}
	foreignKey := func() error {
		return s.write(context.Background(), func(ctx context.Context, tx backend.Tx) error {
			if err := insertLabel(ctx, s, tx, "s", "foreign key"); err != nil {
				return err
			}
			return insertLabel(ctx, s, tx, "no-such-session", "orphan")
		})
	}
	cancelled := func() error {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		return s.write(ctx, func(ctx context.Context, tx backend.Tx) error {
			if err := insertLabel(ctx, s, tx, "s", "cancelled"); err != nil {
				return err
			}
			cancel()
			return insertLabel(ctx, s, tx, "s", "after cancel")
		})
	}
	out := queueCalls(t, s,
		appendCall(s, "s", "a"), goError, appendCall(s, "s", "b"), foreignKey,
		appendCall(s, "missing", "x"), cancelled, appendCall(s, "s", "c"), appendCall(s, "s", "d"))
	release()
	got := collect(out)
	for i, want := range []func(error) bool{
		func(err error) bool { return err == nil },
		func(err error) bool { return errors.Is(err, errRefused) },
		func(err error) bool { return err == nil },
		isForeignKey,
		func(err error) bool { return errors.Is(err, ErrSessionNotFound) },
		func(err error) bool { return errors.Is(err, context.Canceled) },
		func(err error) bool { return err == nil },
		func(err error) bool { return err == nil },
	} {
		if !want(got[i].err) || got[i].panicked != nil {
			t.Errorf("call %d: %+v", i, got[i])
		}
	}
	if diff := cmp.Diff([]string{"a", "b", "c", "d"}, sessionContents(t, s, "s")); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if n := messageCount(t, s, "s"); n != 4 {
		t.Errorf("message_count = %d, want 4", n)
	}
	checkHealthy(t, s)
	if d := since(s, before); d != (statsDelta{Writes: 5, Groups: 2}) {
		t.Errorf("Stats grew by %+v, want the held write and the four in one more group", d)
	}
}

// TestGroupCommitWriteThatEndsTheTransaction: a write whose statement makes
// SQLite roll back the whole transaction (INSERT OR ROLLBACK on a
// duplicate), and one that does so and hides the error, fail alone: the
// writes before them in the group run again in a new transaction, and each
// write is in the file exactly once.
func TestGroupCommitWriteThatEndsTheTransaction(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, nil)
	mustCreate(t, s, NewSession{ID: "s", Source: "cli"})
	before := s.Stats()
	release := holdWriter(t, s)
	var runs [6]atomic.Int32
	counted := func(i int, label string) func() error {
		return func() error {
			return s.write(context.Background(), func(ctx context.Context, tx backend.Tx) error {
				runs[i].Add(1)
				return insertLabel(ctx, s, tx, "s", label)
			})
		}
	}
	// Why hand-written: OR ROLLBACK is the conflict clause that ends the
	// whole transaction, not the statement; the store never uses it.
	const rollbackAll = "INSERT OR ROLLBACK INTO sessions (id, source, started_at) VALUES ('s', 'cli', 0)"
	endsTx := func(i int, hide bool) func() error {
		return func() error {
			return s.write(context.Background(), func(ctx context.Context, tx backend.Tx) error {
				runs[i].Add(1)
				if err := insertLabel(ctx, s, tx, "s", fmt.Sprintf("lost %d", i)); err != nil {
					return err
				}
				_, err := tx.ExecContext(ctx, rollbackAll)
				if hide {
					return nil
				}
				return err
			})
		}
	}
	out := queueCalls(t, s, counted(0, "a"), counted(1, "b"), endsTx(2, false), counted(3, "c"), endsTx(4, true), counted(5, "d"))
	release()
	got := collect(out)
	var se sqlite3.Error
	if !errors.As(got[2].err, &se) || se.Code != sqlite3.ErrConstraint {
		t.Errorf("OR ROLLBACK write: %v, want its constraint error", got[2].err)
	}
	if got[4].err == nil {
		t.Error("the write that hid its rolled-back transaction succeeded")
	}
	for _, i := range []int{0, 1, 3, 5} {
		if got[i].err != nil {
			t.Errorf("call %d: %v", i, got[i].err)
		}
	}
	if diff := cmp.Diff([]string{"a", "b", "c", "d"}, sessionContents(t, s, "s")); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if n := messageCount(t, s, "s"); n != 4 {
		t.Errorf("message_count = %d, want 4", n)
	}
	checkHealthy(t, s)
	// a and b ran in all three transactions, c in the last two.
	var gotRuns [6]int32
	for i := range runs {
		gotRuns[i] = runs[i].Load()
	}
	if want := [6]int32{3, 3, 1, 2, 1, 1}; gotRuns != want {
		t.Errorf("fn runs = %v, want %v", gotRuns, want)
	}
	if d := since(s, before); d != (statsDelta{Writes: 5, Groups: 2}) {
		t.Errorf("Stats grew by %+v, want the held write and one group of four", d)
	}
}

// panicValue is what the panicking test fns panic with.
type panicValue struct{ label string }

// TestGroupCommitPanicFailsOnlyItsCaller: a fn that panics after writing,
// in a group and alone, panics again in its own caller's goroutine with
// the same value; nothing of it is written, the others commit, and the
// store goes on working.
func TestGroupCommitPanicFailsOnlyItsCaller(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, nil)
	mustCreate(t, s, NewSession{ID: "s", Source: "cli"})
	panicking := func(label string) func() error {
		return func() error {
			return s.write(context.Background(), func(ctx context.Context, tx backend.Tx) error {
				if err := insertLabel(ctx, s, tx, "s", label); err != nil {
					return err
				}
				panic(panicValue{label})
			})
		}
	}
	release := holdWriter(t, s)
	out := queueCalls(t, s, appendCall(s, "s", "a"), panicking("in a group"), appendCall(s, "s", "b"))
	release()
	got := collect(out)
	if got[0].err != nil || got[2].err != nil || got[0].panicked != nil || got[2].panicked != nil {
		t.Errorf("the others: %+v, %+v", got[0], got[2])
	}
	if got[1].panicked != (panicValue{"in a group"}) {
		t.Errorf("panicking call: %+v, want its panic", got[1])
	}

	// Alone: no other write shares its transaction.
	alone := callRecovering(panicking("alone"))
	if alone.panicked != (panicValue{"alone"}) {
		t.Errorf("lone panicking call: %+v, want its panic", alone)
	}
	if err := appendCall(s, "s", "c")(); err != nil {
		t.Fatalf("append after the panics: %v", err)
	}
	if diff := cmp.Diff([]string{"a", "b", "c"}, sessionContents(t, s, "s")); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	checkHealthy(t, s)
	if n := messageCount(t, s, "s"); n != 3 {
		t.Errorf("message_count = %d, want 3", n)
	}
}

// TestGroupCommitContextEndsWhileQueued: a caller whose ctx ends while its
// write waits in the queue returns ctx's error at once, while the write
// ahead of it still holds the writer, and its fn never runs; the writes
// around it commit in one group.
func TestGroupCommitContextEndsWhileQueued(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, nil)
	mustCreate(t, s, NewSession{ID: "s", Source: "cli"})
	before := s.Stats()
	release := holdWriter(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var runs atomic.Int32
	quitter := func() error {
		return s.write(ctx, func(ctx context.Context, tx backend.Tx) error {
			runs.Add(1)
			return insertLabel(ctx, s, tx, "s", "quitter")
		})
	}
	out := queueCalls(t, s, appendCall(s, "s", "a"), quitter, appendCall(s, "s", "b"))
	cancel()
	if got := <-out[1]; !errors.Is(got.err, context.Canceled) {
		t.Errorf("cancelled caller: %+v, want context.Canceled", got)
	}
	if n := queuedWrites(s); n != 2 {
		t.Errorf("%d writes queued after the cancel, want 2", n)
	}
	release()
	for _, i := range []int{0, 2} {
		if got := <-out[i]; got.err != nil {
			t.Errorf("call %d: %v", i, got.err)
		}
	}
	if n := runs.Load(); n != 0 {
		t.Errorf("the cancelled write's fn ran %d times, want 0", n)
	}
	if diff := cmp.Diff([]string{"a", "b"}, sessionContents(t, s, "s")); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if d := since(s, before); d != (statsDelta{Writes: 3, Groups: 2}) {
		t.Errorf("Stats grew by %+v, want the held write and one group of two", d)
	}
}

// TestGroupCommitRetriesWhileAnotherConnectionHoldsTheLock: another
// connection takes the write lock just before a group's first BEGIN and
// holds it through three attempts; each BEGIN is busy, the group retries,
// and on the fourth attempt every write of it commits once, except the one
// whose caller gave up during the retries: it gets its ctx's error
// (wrapping the busy attempt's) and nothing of it is written. When the
// lock outlasts the attempts, every write of the group fails with ErrBusy
// and nothing is written.
func TestGroupCommitRetriesWhileAnotherConnectionHoldsTheLock(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name      string
		attempts  int
		releaseAt int // the BEGIN before which the lock is released; 0: never
	}{
		{"Commits", 0, 4},
		{"GivesUp", 3, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, path := openStore(t, &Options{BusyTimeout: 20 * time.Millisecond, WriteAttempts: tt.attempts,
				RetryMinDelay: 5 * time.Millisecond, RetryMaxDelay: 10 * time.Millisecond})
			mustCreate(t, s, NewSession{ID: "s", Source: "cli"})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var lock *dbtest.WriteLock
			begins := 0 // only the leader's goroutine calls the hook
			s.beforeGroupBegin = func() {
				begins++
				switch begins {
				case 1:
					lock = dbtest.HoldWriteLock(t, path)
				case 2:
					cancel() // the caller of b gives up during the retries
				case tt.releaseAt:
					lock.Release()
				}
			}
			before := s.Stats()
			release := holdWriter(t, s)
			gaveUp := func() error {
				_, err := s.AppendMessage(ctx, "s", NewMessage{Role: "user", Content: new("b")})
				return err
			}
			out := queueCalls(t, s, appendCall(s, "s", "a"), gaveUp, appendCall(s, "s", "c"))
			release()
			got := collect(out)
			if !errors.Is(got[1].err, context.Canceled) || !errors.Is(got[1].err, ErrBusy) {
				t.Errorf("the caller that gave up: %v, want context.Canceled wrapping the busy attempt", got[1].err)
			}
			want, wantDelta, wantRetries := []string{"a", "c"}, statsDelta{Writes: 3, Groups: 2}, uint64(3)
			if tt.releaseAt == 0 {
				want, wantDelta, wantRetries = []string{}, statsDelta{Writes: 1, Groups: 1, BusyFailures: 2}, uint64(tt.attempts-1)
			}
			for _, i := range []int{0, 2} {
				if (tt.releaseAt == 0) != errors.Is(got[i].err, ErrBusy) || (tt.releaseAt != 0 && got[i].err != nil) {
					t.Errorf("call %d: %v", i, got[i].err)
				}
			}
			if diff := cmp.Diff(want, sessionContents(t, s, "s")); diff != "" {
				t.Errorf("messages (-want +got):\n%s", diff)
			}
			if d := since(s, before); d != wantDelta {
				t.Errorf("Stats grew by %+v, want %+v", d, wantDelta)
			}
			if r := s.Stats().Retries - before.Retries; r != wantRetries {
				t.Errorf("Retries grew by %d, want %d", r, wantRetries)
			}
		})
	}
}

// TestGroupCommitCommitErrorFailsEveryWrite: a write that defers a foreign
// key violation to COMMIT makes the group's COMMIT fail; every write of the
// group gets that error and the file is as before. The next write works.
func TestGroupCommitCommitErrorFailsEveryWrite(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, nil)
	mustCreate(t, s, NewSession{ID: "s", Source: "cli"})
	before := s.Stats()
	release := holdWriter(t, s)
	deferred := func() error {
		return s.write(context.Background(), func(ctx context.Context, tx backend.Tx) error {
			// Why hand-written: the pragma moves the foreign key check to
			// COMMIT (it resets itself when the transaction ends).
			if _, err := tx.ExecContext(ctx, "PRAGMA defer_foreign_keys = ON"); err != nil {
				return err
			}
			_, err := s.q.MessageInsert(ctx, tx, db.MessageInsertParams{SessionID: "missing", Role: "user", Timestamp: sqlnum.RealOf(1)})
			return err
		})
	}
	out := queueCalls(t, s, appendCall(s, "s", "a"), deferred, appendCall(s, "s", "b"))
	release()
	for i, o := range collect(out) {
		if !isForeignKey(o.err) {
			t.Errorf("call %d: %v, want the FOREIGN KEY error of the COMMIT", i, o.err)
		}
	}
	if diff := cmp.Diff([]string{}, sessionContents(t, s, "s")); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if n := messageCount(t, s, "s"); n != 0 {
		t.Errorf("message_count = %d, want 0", n)
	}
	checkHealthy(t, s)
	if d := since(s, before); d != (statsDelta{Writes: 1, Groups: 1}) {
		t.Errorf("Stats grew by %+v, want only the held write", d)
	}
	if err := appendCall(s, "s", "c")(); err != nil {
		t.Fatalf("append after the failed commit: %v", err)
	}
	if n := dbtest.Value[int64](t, s.r, "SELECT COUNT(*) FROM messages"); n != 1 {
		t.Errorf("messages = %d, want 1", n)
	}
}

// TestWriteAloneSharesNoTransaction: a writeAlone queued between other
// writes commits in a transaction of its own; the writes before and after
// it form their own groups.
func TestWriteAloneSharesNoTransaction(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, nil)
	mustCreate(t, s, NewSession{ID: "s", Source: "cli"})
	before := s.Stats()
	release := holdWriter(t, s)
	alone := func() error {
		return s.writeAlone(context.Background(), func(ctx context.Context, tx backend.Tx) error {
			return insertLabel(ctx, s, tx, "s", "alone")
		})
	}
	out := queueCalls(t, s, appendCall(s, "s", "a"), alone, appendCall(s, "s", "b"), appendCall(s, "s", "c"))
	release()
	for i, o := range collect(out) {
		if o.err != nil {
			t.Errorf("call %d: %v", i, o.err)
		}
	}
	if diff := cmp.Diff([]string{"a", "alone", "b", "c"}, sessionContents(t, s, "s")); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if d := since(s, before); d != (statsDelta{Writes: 5, Groups: 4}) {
		t.Errorf("Stats grew by %+v, want groups held, a, alone, b+c", d)
	}
}

// TestLoneWriterCommitsAlone: sequential writes never wait for company:
// each commits in a transaction of its own.
func TestLoneWriterCommitsAlone(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, nil)
	mustCreate(t, s, NewSession{ID: "s", Source: "cli"})
	before := s.Stats()
	for i := range 20 {
		if err := appendCall(s, "s", fmt.Sprint(i))(); err != nil {
			t.Fatal(err)
		}
	}
	if d := since(s, before); d != (statsDelta{Writes: 20, Groups: 20}) {
		t.Errorf("Stats grew by %+v, want 20 writes in 20 transactions", d)
	}
}

// TestGroupCommitKeepsOrderAndCounters: 8 goroutines append 40 messages
// each, alternately to a session of their own and to one they all share,
// starting together behind a held write so that they group. Each
// goroutine's messages are in its order in both sessions (by id and by
// timestamp), every id it got back holds its message, and every session's
// counters equal its rows.
func TestGroupCommitKeepsOrderAndCounters(t *testing.T) {
	t.Parallel()
	const goroutines, each = 8, 40
	var clock atomic.Int64
	s, _ := openStore(t, &Options{Now: func() time.Time { return time.Unix(1_800_000_000, clock.Add(1000)) }})
	mustCreate(t, s, NewSession{ID: "shared", Source: "cli"})
	for g := range goroutines {
		mustCreate(t, s, NewSession{ID: fmt.Sprintf("g%d", g), Source: "cli"})
	}
	before := s.Stats()
	release := holdWriter(t, s)
	ids := make([][]int64, goroutines)
	errs := make(chan error, goroutines*each)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range each {
				session := "shared"
				if i%2 == 0 {
					session = fmt.Sprintf("g%d", g)
				}
				m := NewMessage{Role: "assistant", Content: new(fmt.Sprintf("g%d-%d", g, i))}
				if i%3 == 0 {
					m.ToolCalls = []byte(`[{"id":"c1","type":"function","function":{"name":"t","arguments":"{}"}}]`)
				}
				id, err := s.AppendMessage(context.Background(), session, m)
				errs <- err
				ids[g] = append(ids[g], id)
			}
		})
	}
	waitQueued(t, s, goroutines)
	release()
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	d := since(s, before)
	if d.Writes != 1+goroutines*each || d.Groups >= d.Writes {
		t.Errorf("Stats grew by %+v, want %d writes in fewer transactions", d, 1+goroutines*each)
	}
	// By id, each goroutine's contents come in its order, and timestamps
	// never go back.
	rows := dbtest.Rows(t, s.r, "SELECT id, session_id, content, timestamp FROM messages ORDER BY id")
	next := map[string]int{}
	lastTS := 0.0
	for _, r := range rows {
		id, session, content, ts := r[0].(int64), r[1].(string), r[2].(string), r[3].(float64)
		var g, i int
		if _, err := fmt.Sscanf(content, "g%d-%d", &g, &i); err != nil {
			t.Fatalf("content %q: %v", content, err)
		}
		if i != next[fmt.Sprint(g)] {
			t.Errorf("message %d %q: goroutine %d's message %d comes next", id, content, g, next[fmt.Sprint(g)])
		}
		next[fmt.Sprint(g)] = i + 1
		if ids[g][i] != id {
			t.Errorf("%q has id %d, AppendMessage returned %d", content, id, ids[g][i])
		}
		want := "shared"
		if i%2 == 0 {
			want = fmt.Sprintf("g%d", g)
		}
		if session != want {
			t.Errorf("%q is in session %q, want %q", content, session, want)
		}
		if ts < lastTS {
			t.Errorf("message %d has timestamp %v, before the previous message's %v", id, ts, lastTS)
		}
		lastTS = ts
	}
	if len(rows) != goroutines*each {
		t.Errorf("%d messages, want %d", len(rows), goroutines*each)
	}
	checkHealthy(t, s)
	// Why hand-written: the counters against the rows, for every session.
	if bad := dbtest.Values[string](t, s.r, `SELECT s.id FROM sessions s
		WHERE s.message_count != (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id)
		   OR s.tool_call_count != (SELECT COALESCE(SUM(json_array_length(m.tool_calls)), 0) FROM messages m WHERE m.session_id = s.id)`); len(bad) != 0 {
		t.Errorf("sessions whose counters differ from their rows: %q", bad)
	}
}

// TestCloseWaitsForQueuedWrites: Close called while writes wait in the
// queue lets every one of them commit, then closes; a write after it gets
// ErrClosed.
func TestCloseWaitsForQueuedWrites(t *testing.T) {
	t.Parallel()
	s, path := openStore(t, nil)
	mustCreate(t, s, NewSession{ID: "s", Source: "cli"})
	release := holdWriter(t, s)
	out := queueCalls(t, s, appendCall(s, "s", "a"), appendCall(s, "s", "b"))
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	release()
	for i, o := range collect(out) {
		if o.err != nil {
			t.Errorf("call %d: %v", i, o.err)
		}
	}
	if err := <-closed; err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := appendCall(s, "s", "c")(); !errors.Is(err, ErrClosed) {
		t.Errorf("append after Close: %v, want ErrClosed", err)
	}
	again := openAt(t, path, nil)
	if diff := cmp.Diff([]string{"a", "b"}, sessionContents(t, again, "s")); diff != "" {
		t.Errorf("messages after reopening (-want +got):\n%s", diff)
	}
}
