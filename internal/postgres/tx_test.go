package postgres_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hermesstate/hermesstate/internal/pgtest"
	"github.com/hermesstate/hermesstate/internal/postgres"
	"github.com/hermesstate/hermesstate/internal/sqlite"
)

// fastRetry is a policy whose sleeps do not slow the tests down.
func fastRetry(attempts int, retries *atomic.Int32) sqlite.Retry {
	return sqlite.Retry{
		Attempts: attempts, MinDelay: time.Millisecond, MaxDelay: 3 * time.Millisecond,
		OnRetry: func(int, error) { retries.Add(1) },
	}
}

// scratch returns a pool on a fresh database of the test's own holding
// table t (id int primary key, n int), and a direct connection to it for
// the test's own checks.
func scratch(t *testing.T) (*pgxpool.Pool, *pgx.Conn) {
	t.Helper()
	ctx := context.Background()
	dsn := pgtest.NewDatabase(t)
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(ctx) })
	// Hand-written: the test's own scratch table, a parent for the
	// foreign-key case, and two rows the deadlock test locks.
	if _, err := c.Exec(ctx, `CREATE TABLE p (id int PRIMARY KEY);
		CREATE TABLE t (id int PRIMARY KEY, n int NOT NULL DEFAULT 0, p int REFERENCES p(id))`); err != nil {
		t.Fatal(err)
	}
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool, c
}

// count returns the number of rows of t matching where (the test's own
// constant text).
func count(t *testing.T, c *pgx.Conn, where string) int {
	t.Helper()
	var n int
	if err := c.QueryRow(context.Background(), "SELECT count(*) FROM t WHERE "+where).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestWriteTxRetriesDeadlock runs two transactions that lock rows 1 and 2
// in opposite orders, each waiting until the other holds its first row:
// the server breaks the deadlock by failing one (40P01), WriteTx runs that
// one again, and both commit, so each row was incremented twice.
func TestWriteTxRetriesDeadlock(t *testing.T) {
	pool, c := scratch(t)
	ctx := context.Background()
	if _, err := c.Exec(ctx, "INSERT INTO t (id) VALUES (1), (2)"); err != nil {
		t.Fatal(err)
	}
	var retries atomic.Int32
	var retryCodes sync.Map
	policy := fastRetry(5, &retries)
	policy.OnRetry = func(_ int, err error) {
		retries.Add(1)
		code, _, _ := postgres.Code(err)
		retryCodes.Store(code, true)
	}
	var locked sync.WaitGroup // both hold their first row
	locked.Add(2)
	var attempts [2]atomic.Int32
	errs := make(chan error, 2)
	for g, order := range [2][2]int{{1, 2}, {2, 1}} {
		go func() {
			errs <- postgres.WriteTx(ctx, pool, policy, "", func(ctx context.Context, tx pgx.Tx) error {
				a := attempts[g].Add(1)
				// Hand-written: the deadlock detector runs after
				// deadlock_timeout (1 s by default): sooner here.
				if _, err := tx.Exec(ctx, "SET LOCAL deadlock_timeout = '50ms'"); err != nil {
					return err
				}
				if _, err := tx.Exec(ctx, "UPDATE t SET n = n + 1 WHERE id = $1", order[0]); err != nil {
					return err
				}
				if a == 1 {
					locked.Done()
					locked.Wait()
				}
				_, err := tx.Exec(ctx, "UPDATE t SET n = n + 1 WHERE id = $1", order[1])
				return err
			})
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatalf("WriteTx: %v", err)
		}
	}
	got := []int32{attempts[0].Load(), attempts[1].Load()}
	if !(got[0] == 1 && got[1] == 2 || got[0] == 2 && got[1] == 1) {
		t.Fatalf("attempts = %v, want one transaction run once and the other twice", got)
	}
	if n := retries.Load(); n != 1 {
		t.Fatalf("OnRetry ran %d times, want 1", n)
	}
	if _, ok := retryCodes.Load(postgres.DeadlockDetected); !ok {
		t.Fatalf("the retried error was not 40P01")
	}
	if n := count(t, c, "n = 2"); n != 2 {
		t.Fatalf("%d rows incremented twice, want 2", n)
	}
}

// TestWriteTxRetriesLostConnection kills the transaction's own backend in
// the middle of the first attempt (after an INSERT, before COMMIT): the next
// statement fails on the dead connection, nothing was applied, and WriteTx
// runs fn again on another connection, which commits. Every row is there
// exactly once.
func TestWriteTxRetriesLostConnection(t *testing.T) {
	pool, c := scratch(t)
	ctx := context.Background()
	var retries atomic.Int32
	var attempts atomic.Int32
	var firstErr error
	err := postgres.WriteTx(ctx, pool, fastRetry(3, &retries), "", func(ctx context.Context, tx pgx.Tx) error {
		a := attempts.Add(1)
		if _, err := tx.Exec(ctx, "INSERT INTO t (id) VALUES (1)"); err != nil {
			return err
		}
		if a == 1 {
			var pid uint32
			if err := tx.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
				return err
			}
			var done bool
			// Hand-written: end that backend and wait (up to 5 s) until
			// it is gone.
			if err := c.QueryRow(ctx, "SELECT pg_terminate_backend($1, 5000)", pid).Scan(&done); err != nil || !done {
				t.Errorf("pg_terminate_backend: %v, %v", done, err)
			}
		}
		_, err := tx.Exec(ctx, "INSERT INTO t (id) VALUES (2)")
		if a == 1 {
			firstErr = err
		}
		return err
	})
	if err != nil {
		t.Fatalf("WriteTx: %v (first attempt: %v)", err, firstErr)
	}
	if firstErr == nil {
		t.Fatal("the statement on the terminated connection succeeded")
	}
	if a, r := attempts.Load(), retries.Load(); a != 2 || r != 1 {
		t.Fatalf("attempts %d, retries %d, want 2 and 1 (first attempt's error: %v)", a, r, firstErr)
	}
	if n := count(t, c, "true"); n != 2 {
		t.Fatalf("%d rows, want 2", n)
	}
	if n := count(t, c, "id = 1"); n != 1 {
		t.Fatalf("row 1 is there %d times, want 1", n)
	}
}

// TestWriteTxRetriesDeadIdleConnections kills every connection while they
// idle in the pool (a server restart, a failover, idle_session_timeout):
// the next write begins on one of them, the BEGIN meets the server's FATAL
// 57P01 goodbye, and WriteTx must take another connection (Begin), until a
// fresh one, instead of failing, even with a single attempt allowed.
func TestWriteTxRetriesDeadIdleConnections(t *testing.T) {
	pool, c := scratch(t)
	ctx := context.Background()
	const idle = 4
	var conns []*pgxpool.Conn
	var pids []uint32
	for range idle {
		conn, err := pool.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var pid uint32
		if err := conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
			t.Fatal(err)
		}
		conns, pids = append(conns, conn), append(pids, pid)
	}
	for _, conn := range conns {
		conn.Release()
	}
	for _, pid := range pids {
		var done bool
		if err := c.QueryRow(ctx, "SELECT pg_terminate_backend($1, 5000)", pid).Scan(&done); err != nil || !done {
			t.Fatalf("pg_terminate_backend: %v, %v", done, err)
		}
	}
	if st := pool.Stat(); st.IdleConns() != idle {
		t.Fatalf("pool holds %d idle connections, want %d", st.IdleConns(), idle)
	}
	var retries, attempts atomic.Int32
	var pid uint32
	err := postgres.WriteTx(ctx, pool, fastRetry(1, &retries), "", func(ctx context.Context, tx pgx.Tx) error {
		attempts.Add(1)
		if err := tx.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "INSERT INTO t (id) VALUES (1)")
		return err
	})
	if err != nil {
		t.Fatalf("WriteTx on a pool whose idle connections were terminated: %v", err)
	}
	if a, r := attempts.Load(), retries.Load(); a != 1 || r != 0 {
		t.Fatalf("fn ran %d times with %d retries, want 1 and 0", a, r)
	}
	for _, dead := range pids {
		if pid == dead {
			t.Fatalf("the write ran on terminated backend %d", pid)
		}
	}
	if n := count(t, c, "id = 1"); n != 1 {
		t.Fatalf("row 1 is there %d times, want 1", n)
	}
	if st := pool.Stat(); st.TotalConns() != 1 {
		t.Fatalf("pool holds %d connections after the write, want the 1 fresh one", st.TotalConns())
	}
}

// TestWriteTxUniqueViolationNotRetried: a unique violation is the caller's
// answer, not contention; it is returned at once, after one attempt, and
// the attempt's first insert is rolled back with it.
func TestWriteTxUniqueViolationNotRetried(t *testing.T) {
	pool, c := scratch(t)
	ctx := context.Background()
	var retries, attempts atomic.Int32
	err := postgres.WriteTx(ctx, pool, fastRetry(5, &retries), "", func(ctx context.Context, tx pgx.Tx) error {
		attempts.Add(1)
		if _, err := tx.Exec(ctx, "INSERT INTO t (id) VALUES (7)"); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "INSERT INTO t (id) VALUES (7)")
		return err
	})
	if !postgres.IsUnique(err) {
		t.Fatalf("err = %v, want a unique violation", err)
	}
	if code, constraint, _ := postgres.Code(err); code != postgres.UniqueViolation || constraint != "t_pkey" {
		t.Fatalf("Code = %q, %q, want 23505, t_pkey", code, constraint)
	}
	if errors.Is(err, sqlite.ErrBusy) || postgres.IsRetryable(err) {
		t.Fatalf("err = %v classified as contention", err)
	}
	if a, r := attempts.Load(), retries.Load(); a != 1 || r != 0 {
		t.Fatalf("attempts %d, retries %d, want 1 and 0", a, r)
	}
	if n := count(t, c, "true"); n != 0 {
		t.Fatalf("%d rows after the failed write, want 0", n)
	}
}

// raise40001 is a statement that fails with a serialization failure.
const raise40001 = "DO $$ BEGIN RAISE EXCEPTION 'forced' USING ERRCODE = '40001'; END $$"

// TestWriteTxGivesUpAsBusy: a transaction that meets a serialization
// failure on every attempt runs policy.Attempts times and fails with an
// error matching sqlite.ErrBusy that still carries the SQLSTATE.
func TestWriteTxGivesUpAsBusy(t *testing.T) {
	pool, c := scratch(t)
	ctx := context.Background()
	var retries, attempts atomic.Int32
	err := postgres.WriteTx(ctx, pool, fastRetry(4, &retries), "", func(ctx context.Context, tx pgx.Tx) error {
		attempts.Add(1)
		if _, err := tx.Exec(ctx, "INSERT INTO t (id) VALUES (1)"); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, raise40001)
		return err
	})
	if !errors.Is(err, sqlite.ErrBusy) {
		t.Fatalf("err = %v, want ErrBusy", err)
	}
	if code, _, _ := postgres.Code(err); code != postgres.SerializationFailure {
		t.Fatalf("code %q, want 40001 inside %v", code, err)
	}
	if a, r := attempts.Load(), retries.Load(); a != 4 || r != 3 {
		t.Fatalf("attempts %d, retries %d, want 4 and 3", a, r)
	}
	if n := count(t, c, "true"); n != 0 {
		t.Fatalf("%d rows after the failed write, want 0", n)
	}
}

// TestWriteTxBeginQuery: the begin text opens the transaction (here with
// the store's shared advisory lock) and its lock is the transaction's.
func TestWriteTxBeginQuery(t *testing.T) {
	pool, c := scratch(t)
	ctx := context.Background()
	var retries atomic.Int32
	var locks int
	err := postgres.WriteTx(ctx, pool, fastRetry(1, &retries),
		"BEGIN ISOLATION LEVEL READ COMMITTED; SELECT pg_advisory_xact_lock_shared(42)",
		func(ctx context.Context, tx pgx.Tx) error {
			// Hand-written: the advisory locks this backend holds.
			return tx.QueryRow(ctx, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'
				AND pid = pg_backend_pid() AND objid = 42 AND mode = 'ShareLock'`).Scan(&locks)
		})
	if err != nil {
		t.Fatal(err)
	}
	if locks != 1 {
		t.Fatalf("%d shared advisory locks held inside the transaction, want 1", locks)
	}
	var left int
	if err := c.QueryRow(ctx, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 42").Scan(&left); err != nil || left != 0 {
		t.Fatalf("advisory locks left after commit: %d, %v", left, err)
	}
}

// TestWriteTxContext: WriteTx ends when ctx does, in each place it can
// wait: a ctx already done, a statement blocked on a lock, the sleep
// between attempts.
func TestWriteTxContext(t *testing.T) {
	pool, c := scratch(t)
	ctx := context.Background()
	if _, err := c.Exec(ctx, "INSERT INTO t (id) VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	var retries atomic.Int32

	t.Run("done before", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		ran := false
		err := postgres.WriteTx(cctx, pool, fastRetry(5, &retries), "", func(context.Context, pgx.Tx) error {
			ran = true
			return nil
		})
		if !errors.Is(err, context.Canceled) || ran {
			t.Fatalf("err = %v, fn ran %v; want context.Canceled and no run", err, ran)
		}
	})

	t.Run("blocked statement", func(t *testing.T) {
		// Another transaction holds row 1; the write waits for it until
		// its ctx times out.
		holder, err := c.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer holder.Rollback(ctx)
		if _, err := holder.Exec(ctx, "UPDATE t SET n = 5 WHERE id = 1"); err != nil {
			t.Fatal(err)
		}
		tctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		defer cancel()
		var attempts atomic.Int32
		start := time.Now()
		err = postgres.WriteTx(tctx, pool, fastRetry(5, &retries), "", func(ctx context.Context, tx pgx.Tx) error {
			attempts.Add(1)
			_, err := tx.Exec(ctx, "UPDATE t SET n = 9 WHERE id = 1")
			return err
		})
		if err == nil || tctx.Err() == nil {
			t.Fatalf("err = %v, want the write to end with its ctx", err)
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Fatalf("WriteTx returned %v after its ctx ended", took)
		}
		if a := attempts.Load(); a != 1 {
			t.Fatalf("fn ran %d times, want 1", a)
		}
		holder.Rollback(ctx)
		if n := count(t, c, "n = 0"); n != 1 {
			t.Fatalf("row 1 changed by the cancelled write")
		}
	})

	t.Run("between attempts", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		var attempts atomic.Int32
		policy := sqlite.Retry{Attempts: 5, MinDelay: 10 * time.Second, MaxDelay: 10 * time.Second}
		start := time.Now()
		go func() { time.Sleep(100 * time.Millisecond); cancel() }()
		err := postgres.WriteTx(cctx, pool, policy, "", func(ctx context.Context, tx pgx.Tx) error {
			attempts.Add(1)
			_, err := tx.Exec(ctx, raise40001)
			return err
		})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		if code, _, _ := postgres.Code(err); code != postgres.SerializationFailure {
			t.Fatalf("the last attempt's 40001 is not kept in %v", err)
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Fatalf("the sleep between attempts outlived ctx: %v", took)
		}
		if a := attempts.Load(); a != 1 {
			t.Fatalf("fn ran %d times, want 1", a)
		}
	})
}

// TestWriteTxCommitUnknown kills the backend while it runs COMMIT (a
// deferred constraint trigger makes the COMMIT sleep): the client cannot
// know whether it committed, so WriteTx returns ErrCommitUnknown after one
// attempt instead of running fn again, and here the server had not
// committed it.
func TestWriteTxCommitUnknown(t *testing.T) {
	pool, c := scratch(t)
	ctx := context.Background()
	// Hand-written: a trigger fired at COMMIT that sleeps 2 s.
	if _, err := c.Exec(ctx, `CREATE FUNCTION slow() RETURNS trigger LANGUAGE plpgsql AS
		$$ BEGIN PERFORM pg_sleep(2); RETURN NULL; END $$;
		CREATE CONSTRAINT TRIGGER slow AFTER INSERT ON t DEFERRABLE INITIALLY DEFERRED
		FOR EACH ROW EXECUTE FUNCTION slow()`); err != nil {
		t.Fatal(err)
	}
	var retries, attempts atomic.Int32
	killed := make(chan error, 1)
	err := postgres.WriteTx(ctx, pool, fastRetry(5, &retries), "", func(ctx context.Context, tx pgx.Tx) error {
		attempts.Add(1)
		var pid uint32
		if err := tx.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
			return err
		}
		go func() {
			// Wait until the backend sleeps in the trigger, then end it.
			for range 100 {
				var sleeping bool
				err := c.QueryRow(ctx, "SELECT coalesce(wait_event = 'PgSleep', false) FROM pg_stat_activity WHERE pid = $1", pid).Scan(&sleeping)
				if err != nil {
					killed <- err
					return
				}
				if sleeping {
					_, err := c.Exec(ctx, "SELECT pg_terminate_backend($1, 5000)", pid)
					killed <- err
					return
				}
				time.Sleep(10 * time.Millisecond)
			}
			killed <- errors.New("the COMMIT never slept")
		}()
		_, err := tx.Exec(ctx, "INSERT INTO t (id) VALUES (1)")
		return err
	})
	if kerr := <-killed; kerr != nil {
		t.Fatal(kerr)
	}
	if !errors.Is(err, postgres.ErrCommitUnknown) {
		t.Fatalf("err = %v, want ErrCommitUnknown", err)
	}
	if a, r := attempts.Load(), retries.Load(); a != 1 || r != 0 {
		t.Fatalf("attempts %d, retries %d, want 1 and 0", a, r)
	}
	if n := count(t, c, "true"); n != 0 {
		t.Fatalf("%d rows: the terminated COMMIT committed", n)
	}
}

// TestWriteTxProtocolErrorNotRetried: under the simple protocol (what
// PgBouncer in transaction mode needs) a query text with a NUL byte in it
// is refused with 08P01 as a plain ERROR, on a connection that stays up.
// That is no lost connection: WriteTx returns it after one attempt rather
// than running the same failure policy.Attempts times.
func TestWriteTxProtocolErrorNotRetried(t *testing.T) {
	_, c := scratch(t)
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(c.Config().ConnString())
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var retries, attempts atomic.Int32
	err = postgres.WriteTx(ctx, pool, fastRetry(5, &retries), "", func(ctx context.Context, tx pgx.Tx) error {
		attempts.Add(1)
		_, err := tx.Exec(ctx, "SELECT $1::text", "a\x00b")
		return err
	})
	if code, _, _ := postgres.Code(err); code != "08P01" {
		t.Fatalf("err = %v, want SQLSTATE 08P01", err)
	}
	if errors.Is(err, sqlite.ErrBusy) || postgres.IsConnectionLost(err) {
		t.Fatalf("err = %v classified as contention or a lost connection", err)
	}
	if a, r := attempts.Load(), retries.Load(); a != 1 || r != 0 {
		t.Fatalf("attempts %d, retries %d, want 1 and 0", a, r)
	}
	if st := pool.Stat(); st.TotalConns() != 1 {
		t.Fatalf("%d connections: the protocol error should leave the one connection up", st.TotalConns())
	}
}
