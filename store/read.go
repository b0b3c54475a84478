package store

import (
	"context"
	"database/sql/driver"
	"fmt"

	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/sqlite"
)

// read runs fn in one read transaction on the read-only pool while the
// store is open, so every statement fn runs sees the same committed state
// (one WAL snapshot) even while other connections write. The transaction is
// DEFERRED (the reader DSN sets no _txlock) and only ever reads; it is
// rolled back, which for a read transaction just ends it. SQLite errors
// come back classified: a damaged file or index matches ErrCorrupt. Like
// every helper it names no operation; the exported method that calls it
// does.
//
// A function rather than a method because Go methods cannot be generic.
func read[T any](s *Store, ctx context.Context, fn func(context.Context, backend.Tx) (T, error)) (T, error) {
	var zero T
	if err := s.acquire(); err != nil {
		return zero, err
	}
	defer s.release()
	if s.pg != nil {
		return pgReadTx(s, ctx, fn)
	}
	tx, err := s.r.BeginTx(ctx, nil)
	if err != nil {
		return zero, fmt.Errorf("begin: %w", sqlite.Classify(err))
	}
	defer tx.Rollback()
	v, err := fn(ctx, backend.SQLiteTx(tx))
	return v, sqlite.Classify(err)
}

// readConn is read on one pooled connection held as a *sql.Conn, the
// snapshot opened and ended by BEGIN and ROLLBACK statements (what
// BeginTx and Rollback send for the read pool, which sets no _txlock), so
// that fn's hot statements can also go straight to the driver (rawQuery),
// which a *sql.Tx does not allow. A ROLLBACK that fails leaves the
// connection's state unknown: the connection is dropped from the pool
// rather than handed on with a transaction open.
func readConn[T any](s *Store, ctx context.Context, fn func(context.Context, backend.Tx) (T, error)) (T, error) {
	var zero T
	if err := s.acquire(); err != nil {
		return zero, err
	}
	defer s.release()
	if s.pg != nil {
		return pgReadTx(s, ctx, fn)
	}
	c, err := s.r.Conn(ctx)
	if err != nil {
		return zero, fmt.Errorf("begin: %w", sqlite.Classify(err))
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, "BEGIN"); err != nil {
		return zero, fmt.Errorf("begin: %w", sqlite.Classify(err))
	}
	v, err := fn(ctx, backend.SQLiteTx(c))
	if _, rerr := c.ExecContext(context.WithoutCancel(ctx), "ROLLBACK"); rerr != nil {
		c.Raw(func(any) error { return driver.ErrBadConn })
	}
	return v, sqlite.Classify(err)
}

// readEach is read for callers that stream: fn gets one connection in one
// snapshot (readConn's), so it can hold several cursors open at once and
// its hot statements can take the driver path.
func readEach(s *Store, ctx context.Context, fn func(context.Context, backend.Tx) error) error {
	_, err := readConn(s, ctx, func(ctx context.Context, q backend.Tx) (struct{}, error) {
		return struct{}{}, fn(ctx, q)
	})
	return err
}

// readOne runs fn, which must run exactly one statement, on the read-only
// pool while the store is open, without an explicit transaction: a single
// statement is its own snapshot (SQLite opens a read transaction for it
// and ends it when the statement is reset), so BEGIN and ROLLBACK would
// only add two round trips through database/sql and the driver. A method
// that runs two statements whose answers must agree uses read instead.
// Errors are classified as read's.
func readOne[T any](s *Store, ctx context.Context, fn func(context.Context, backend.Tx) (T, error)) (T, error) {
	var zero T
	if err := s.acquire(); err != nil {
		return zero, err
	}
	defer s.release()
	if s.pg != nil {
		return pgReadOne(s, ctx, fn)
	}
	v, err := fn(ctx, backend.SQLiteTx(s.r))
	return v, sqlite.Classify(err)
}

// readUntilDone is read for a call whose SQLite work may outlast its
// context. sqlite3_interrupt, which the driver calls when ctx ends, is
// checked between the virtual machine's instructions, but some single
// instructions run long over one huge row: FTS5's snippet() is quadratic in
// the matches inside the document (a 10 MB message with a common word takes
// minutes), and LIKE and instr() over a 10 MB text with a long pattern are
// quadratic too. So fn runs on a goroutine of its own and the caller gets
// ctx's error as soon as ctx ends. The abandoned read keeps its pooled
// connection until SQLite returns from that instruction, where the
// interrupt ends the statement; Close waits for it like any call in flight.
func readUntilDone[T any](s *Store, ctx context.Context, fn func(context.Context, backend.Tx) (T, error)) (T, error) {
	return untilDone(ctx, func() (T, error) { return read(s, ctx, fn) })
}

// readOneUntilDone is readUntilDone for a single statement (see readOne).
func readOneUntilDone[T any](s *Store, ctx context.Context, fn func(context.Context, backend.Tx) (T, error)) (T, error) {
	return untilDone(ctx, func() (T, error) { return readOne(s, ctx, fn) })
}

// untilDone runs fn on a goroutine of its own and returns its answer, or
// ctx's error as soon as ctx ends (see readUntilDone; split searches use it
// for work that is more than one read transaction).
func untilDone[T any](ctx context.Context, fn func() (T, error)) (T, error) {
	if ctx.Done() == nil {
		return fn()
	}
	var (
		v    T
		err  error
		done = make(chan struct{})
	)
	go func() {
		defer close(done)
		v, err = fn()
	}()
	select {
	case <-done:
		return v, err
	case <-ctx.Done():
		select {
		case <-done: // finished at the same moment: keep its answer
			return v, err
		default:
		}
		var zero T
		return zero, ctx.Err()
	}
}

// convertRows converts the rows a query returned, one by one, or returns
// the query's error.
func convertRows[R, T any](rows []R, err error, conv func(R) T) ([]T, error) {
	if err != nil {
		return nil, err
	}
	out := make([]T, len(rows))
	for i, r := range rows {
		out[i] = conv(r)
	}
	return out, nil
}
