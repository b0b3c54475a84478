package transfer

import (
	"errors"
	"fmt"

	"github.com/hermesstate/hermesstate/internal/pyjson"
)

// The store's sentinels for bad input, defined here so that a refused
// record matches them; the store re-exports both, with these messages.
// An error wrapping one names the field first: "model_config: invalid
// JSON: …", "messages[0].content: text is not valid UTF-8: byte 0xff".
var (
	// ErrInvalidJSON is wrapped by the error for a JSON column value that
	// is not one JSON value, or is nested deeper than Python reads
	// (pyjson.MaxDepth): it is pyjson's own ErrInvalid, whose errors say
	// what is wrong and where.
	ErrInvalidJSON = pyjson.ErrInvalid

	// ErrInvalidText is wrapped by the error for text that is not UTF-8,
	// or escapes half a UTF-16 surrogate pair: no Python str holds it.
	ErrInvalidText = errors.New("text is not valid UTF-8")
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
