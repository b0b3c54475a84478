package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/hermesstate/hermesstate/internal/postgres"
	"github.com/hermesstate/hermesstate/internal/sqlite"
)

// TestClassifyServerErrors provokes each SQLSTATE the store tells apart on
// the real server and checks Code, the Is* predicates and Classify's
// sentinel for it.
func TestClassifyServerErrors(t *testing.T) {
	pool, c := scratch(t)
	ctx := context.Background()
	if _, err := c.Exec(ctx, "INSERT INTO p VALUES (1); INSERT INTO t (id, p) VALUES (1, 1)"); err != nil {
		t.Fatal(err)
	}
	// lockTimeout fails with 55P03: row 1 is held by another transaction
	// and the statement waits at most 20 ms.
	lockTimeout := func() error {
		holder, err := c.Begin(ctx)
		if err != nil {
			return err
		}
		defer holder.Rollback(ctx)
		if _, err := holder.Exec(ctx, "SELECT 1 FROM t WHERE id = 1 FOR UPDATE"); err != nil {
			return err
		}
		tx, err := pool.Begin(ctx)
		if err != nil {
			return err
		}
		defer tx.Rollback(ctx)
		if _, err := tx.Exec(ctx, "SET LOCAL lock_timeout = '20ms'"); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, "UPDATE t SET n = 1 WHERE id = 1")
		return err
	}
	// terminated is the error of a statement on a connection the server
	// ended (57P01).
	terminated := func() error {
		conn, err := pool.Acquire(ctx)
		if err != nil {
			return err
		}
		defer conn.Release()
		var pid uint32
		if err := conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
			return err
		}
		if _, err := c.Exec(ctx, "SELECT pg_terminate_backend($1, 5000)", pid); err != nil {
			return err
		}
		_, err = conn.Exec(ctx, "SELECT 1")
		return err
	}
	exec := func(sql string) func() error {
		return func() error { _, err := pool.Exec(ctx, sql); return err }
	}
	readOnly := func() error {
		tx, err := pool.Begin(ctx)
		if err != nil {
			return err
		}
		defer tx.Rollback(ctx)
		_, err = tx.Exec(ctx, "SET TRANSACTION READ ONLY; INSERT INTO t (id) VALUES (99)")
		return err
	}
	tests := []struct {
		name       string
		provoke    func() error
		code       string
		constraint string
		retryable  bool
		unique     bool
		foreignKey bool
		lost       bool
		sentinel   error
	}{
		{name: "unique", provoke: exec("INSERT INTO t (id) VALUES (1)"), code: "23505", constraint: "t_pkey", unique: true},
		{name: "foreign key", provoke: exec("INSERT INTO t (id, p) VALUES (2, 42)"), code: "23503", constraint: "t_p_fkey", foreignKey: true},
		{name: "serialization", provoke: exec(raise40001), code: "40001", retryable: true, sentinel: sqlite.ErrBusy},
		{name: "deadlock", provoke: exec("DO $$ BEGIN RAISE EXCEPTION 'forced' USING ERRCODE = '40P01'; END $$"), code: "40P01", retryable: true, sentinel: sqlite.ErrBusy},
		{name: "lock timeout", provoke: lockTimeout, code: "55P03", retryable: true, sentinel: sqlite.ErrBusy},
		{name: "read-only transaction", provoke: readOnly, code: "25006", sentinel: sqlite.ErrReadOnly},
		{name: "disk full", provoke: exec("DO $$ BEGIN RAISE EXCEPTION 'forced' USING ERRCODE = '53100'; END $$"), code: "53100", sentinel: sqlite.ErrDiskFull},
		{name: "NUL in text", provoke: exec("SELECT chr(0)"), code: "54000"},
		{name: "invalid UTF-8", provoke: exec(`SELECT convert_from('\xff'::bytea, 'UTF8')`), code: "22021"},
		{name: "terminated", provoke: terminated, code: "57P01", lost: true},
		{name: "syntax", provoke: exec("SELEC 1"), code: "42601"},
		// A class-08 code on a live connection (an ERROR, not FATAL):
		// not a lost connection, so not run again.
		{name: "protocol violation as ERROR", provoke: exec("DO $$ BEGIN RAISE EXCEPTION 'forced' USING ERRCODE = '08P01'; END $$"), code: "08P01"},
		{name: "admin shutdown as ERROR", provoke: exec("DO $$ BEGIN RAISE EXCEPTION 'forced' USING ERRCODE = '57P01'; END $$"), code: "57P01"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.provoke()
			code, constraint, ok := postgres.Code(err)
			if !ok || code != tc.code || constraint != tc.constraint {
				t.Fatalf("Code(%v) = %q, %q, %v; want %q, %q", err, code, constraint, ok, tc.code, tc.constraint)
			}
			if got := postgres.IsRetryable(err); got != tc.retryable {
				t.Errorf("IsRetryable = %v", got)
			}
			if got := postgres.IsUnique(err); got != tc.unique {
				t.Errorf("IsUnique = %v", got)
			}
			if got := postgres.IsForeignKey(err); got != tc.foreignKey {
				t.Errorf("IsForeignKey = %v", got)
			}
			if got := postgres.IsConnectionLost(err); got != tc.lost {
				t.Errorf("IsConnectionLost = %v", got)
			}
			classified := postgres.Classify(err)
			for _, s := range []error{sqlite.ErrBusy, sqlite.ErrReadOnly, sqlite.ErrDiskFull} {
				if got := errors.Is(classified, s); got != (s == tc.sentinel) {
					t.Errorf("errors.Is(Classify(err), %v) = %v", s, got)
				}
			}
			if tc.sentinel == nil && classified != err {
				t.Errorf("Classify changed an error it has no sentinel for: %v", classified)
			}
			if c2, _, _ := postgres.Code(classified); c2 != tc.code {
				t.Errorf("Classify lost the SQLSTATE: %q", c2)
			}
			if again := postgres.Classify(classified); again != classified {
				t.Errorf("Classify is not idempotent: %v", again)
			}
		})
	}
}

// TestClassifyNonServerErrors: errors that are not the server's pass
// through unchanged.
func TestClassifyNonServerErrors(t *testing.T) {
	plain := fmt.Errorf("wrapped: %w", context.DeadlineExceeded)
	for _, err := range []error{nil, plain, errors.New("x"), sqlite.ErrBusy} {
		if got := postgres.Classify(err); got != err {
			t.Errorf("Classify(%v) = %v", err, got)
		}
		if _, _, ok := postgres.Code(err); ok {
			t.Errorf("Code(%v) ok", err)
		}
		if postgres.IsRetryable(err) || postgres.IsUnique(err) || postgres.IsForeignKey(err) || postgres.IsConnectionLost(err) {
			t.Errorf("%v matched a predicate", err)
		}
	}
}
