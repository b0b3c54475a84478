package sqlite

import (
	"context"
	"database/sql"
	"fmt"
)

// WriteTx runs fn in one write transaction on db, a writer from [OpenWriter]
// (whose transactions begin IMMEDIATE), and commits it. When BEGIN, fn or
// COMMIT fails with SQLITE_BUSY or SQLITE_LOCKED the transaction is rolled back
// and the whole of fn runs again under r, so fn must be safe to run more than
// once: it may not keep state across attempts other than what it recomputes.
//
// Any other error from fn (a constraint, a cancelled ctx, a Go error) rolls the
// transaction back and is returned at once, unretried, leaving the database as
// it was. When the attempts run out the error matches [ErrBusy]; other SQLite
// failures are classified (see [Classify]): a full disk matches [ErrDiskFull].
func WriteTx(ctx context.Context, db *sql.DB, r Retry, fn func(ctx context.Context, tx *sql.Tx) error) error {
	return Classify(r.Do(ctx, func(ctx context.Context) error {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("begin: %w", err)
		}
		if err := fn(ctx, tx); err != nil {
			// The rollback error is not interesting: either it worked, or the
			// transaction is already gone (ctx done, or SQLite rolled back on
			// its own after a busy or I/O error).
			_ = tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("commit: %w", err)
		}
		return nil
	}))
}
