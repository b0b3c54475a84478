package transfer

import (
	"errors"
	"fmt"
)

// The store's sentinels for bad input, defined here so that a refused
// record matches them; the store re-exports both, with these messages.
var (
	// ErrInvalidJSON is wrapped by the error for a JSON column value that
	// is not one JSON value, or is nested deeper than Python reads
	// (pyjson.MaxDepth).
	ErrInvalidJSON = errors.New("store: invalid JSON")

	// ErrInvalidText is wrapped by the error for text that is not UTF-8,
	// or escapes half a UTF-16 surrogate pair: no Python str holds it.
	ErrInvalidText = errors.New("store: text is not valid UTF-8")
)

// RecordError is a record that cannot be imported: not JSON, not a session
// object, a required field missing, a message of another session, a JSON
// column that is not JSON (ErrInvalidJSON), text that is not UTF-8
// (ErrInvalidText), or a broken JSON array around it.
type RecordError struct {
	// Line is the 1-based line the record starts on.
	Line int
	Err  error
}

// Error returns "line N: " and what is wrong.
func (e *RecordError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

// Unwrap returns what is wrong.
func (e *RecordError) Unwrap() error { return e.Err }
