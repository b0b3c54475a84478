package store

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/hermesstate/hermesstate/internal/transfer"
)

// The JSON columns (sessions.model_config, messages.tool_calls,
// reasoning_details, codex_reasoning_items, codex_message_items) hold the
// text Python's json.dumps writes with default arguments: ", " and ": "
// separators, non-ASCII as \uXXXX, keys in the caller's order, no HTML
// escaping. That text is what the FTS indexes and the LIKE search see, so a
// row written here searches exactly like one the original wrote.

// encodeJSON returns the column value for a JSON argument: NULL for a value
// Python treats as falsy (absent, null, false, 0, "", [], {}), as the
// original stores `json.dumps(x) if x else None`; otherwise the Python-format
// text. It also returns the value's tool-call count (see NewMessage.ToolCalls),
// from the same single scan. Text that is not one JSON value is an
// ErrInvalidJSON naming field. The rule is transfer.JSONColumn's, which an
// import applies to tool_calls too.
func encodeJSON(field string, raw json.RawMessage) (*string, int, error) {
	return transfer.JSONColumn(field, raw)
}

// rawJSON returns a stored JSON column for a caller: the text unchanged,
// nil for NULL.
func rawJSON(col *string) JSONText {
	if col == nil {
		return nil
	}
	return JSONText(*col)
}

// toolCallsJSON is a stored tool_calls column as the original reads it:
// nil when NULL or empty (Python's truthiness test skips it), the text when
// it decodes, and [] when it does not (get_messages and conversation replay
// both fall back to []).
func toolCallsJSON(col *string) json.RawMessage { return storedJSON(col, "[]") }

// decodedJSON is the conversation-replay rule for reasoning_details and the
// codex columns: as toolCallsJSON, but text that does not decode reads as
// JSON null (the original keeps the key with None).
func decodedJSON(col *string) json.RawMessage { return storedJSON(col, "null") }

// storedJSON returns nil for a NULL or empty column, the column's text when
// it is JSON, and invalid otherwise.
func storedJSON(col *string, invalid string) json.RawMessage {
	if col == nil || *col == "" {
		return nil
	}
	// One copy of the text serves both the check and the result.
	b := json.RawMessage(*col)
	if !json.Valid(b) {
		return json.RawMessage(invalid)
	}
	return b
}

// checkText returns ErrInvalidText naming field when s is not valid UTF-8.
// Python strings are always valid Unicode, so the original could not read a
// row holding such bytes; the store refuses them before writing anything.
func checkText(field, s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("%s: %w", field, ErrInvalidText)
	}
	return nil
}

// checkTexts runs checkText over name, value pairs.
func checkTexts(nameValue ...string) error {
	for i := 0; i+1 < len(nameValue); i += 2 {
		if err := checkText(nameValue[i], nameValue[i+1]); err != nil {
			return err
		}
	}
	return nil
}
