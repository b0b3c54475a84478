package postgres

import (
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/hermesstate/hermesstate/internal/sqlite"
)

// SQLSTATEs the store tells apart (PostgreSQL's Appendix A).
const (
	UniqueViolation          = "23505"
	ForeignKeyViolation      = "23503"
	SerializationFailure     = "40001"
	DeadlockDetected         = "40P01"
	LockNotAvailable         = "55P03"
	ReadOnlyTransaction      = "25006"
	DiskFull                 = "53100"
	CharacterNotInRepertoire = "22021" // a NUL byte or invalid UTF-8 in text
	ProgramLimitExceeded     = "54000" // e.g. a tsvector over 1 MiB
	AdminShutdown            = "57P01"
)

// Code returns err's SQLSTATE and the constraint it names, or ok false
// when err is not a PostgreSQL error.
func Code(err error) (code, constraint string, ok bool) {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return "", "", false
	}
	return pe.Code, pe.ConstraintName, true
}

// IsRetryable reports whether err is a failure that running the whole
// transaction again can cure: a serialization failure, a deadlock the
// server broke, or a lock_timeout.
func IsRetryable(err error) bool {
	code, _, ok := Code(err)
	return ok && (code == SerializationFailure || code == DeadlockDetected || code == LockNotAvailable)
}

// IsForeignKey reports whether err is a foreign-key violation: a row
// naming a parent row that does not exist.
func IsForeignKey(err error) bool {
	code, _, ok := Code(err)
	return ok && code == ForeignKeyViolation
}

// IsUnique reports whether err is a unique or primary-key violation.
func IsUnique(err error) bool {
	code, _, ok := Code(err)
	return ok && code == UniqueViolation
}

// IsConnectionLost reports whether err is the connection dying rather
// than the server refusing a statement: an error of severity FATAL or
// PANIC, which the server sends only as it ends the session (57P01 at a
// shutdown or pg_terminate_backend, which is also what a pooled connection
// ended while it idled answers its next statement with; 25P03 at
// idle_in_transaction_session_timeout; …), or a failure pgconn calls safe
// to retry (nothing reached the server). The SQLSTATE's class does not
// tell: class 08 also comes as a plain ERROR on a live connection (08P01
// for a query text holding a NUL byte under the simple protocol), which
// running the transaction again cannot cure. The unlocalised severity is
// a fixed word, not message text.
func IsConnectionLost(err error) bool {
	if pgconn.SafeToRetry(err) {
		return true
	}
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.SeverityUnlocalized == "FATAL" || pe.SeverityUnlocalized == "PANIC")
}

// Classify wraps err with the store sentinel its SQLSTATE maps to
// (sqlite.ErrBusy for contention that outlived the retries' budget,
// sqlite.ErrReadOnly for a read-only transaction or standby, and
// sqlite.ErrDiskFull), keeping PostgreSQL's message inside. Other errors
// are returned unchanged; nil stays nil.
func Classify(err error) error {
	code, _, ok := Code(err)
	if !ok {
		return err
	}
	var sentinel error
	switch code {
	case SerializationFailure, DeadlockDetected, LockNotAvailable:
		sentinel = sqlite.ErrBusy
	case ReadOnlyTransaction:
		sentinel = sqlite.ErrReadOnly
	case DiskFull:
		sentinel = sqlite.ErrDiskFull
	default:
		return err
	}
	if errors.Is(err, sentinel) {
		return err
	}
	return fmt.Errorf("%w: %w", sentinel, err)
}
