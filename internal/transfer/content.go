package transfer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/hermesstate/hermesstate/internal/pyjson"
)

// ContentJSONPrefix starts the content of a message whose content is not
// text (a multimodal list of parts, a dict): upstream stores it as this
// prefix followed by Python's json.dumps of the value, and decodes it on
// every read. The NUL byte is part of the stored text: SQLite's length()
// and substr() stop at it (length 0), and a binding that cut C strings at
// NUL would store an empty string.
const ContentJSONPrefix = "\x00json:"

// StructuredContent returns the JSON of a stored content that holds
// structured content: the text after ContentJSONPrefix, when it is one
// JSON value. It returns nil for NULL, for plain text, and for prefixed
// text that does not decode (upstream then returns the stored text as it
// is).
func StructuredContent(col *string) json.RawMessage {
	if col == nil || !strings.HasPrefix(*col, ContentJSONPrefix) {
		return nil
	}
	raw := []byte((*col)[len(ContentJSONPrefix):])
	if !json.Valid(raw) {
		return nil
	}
	return raw
}

// EncodeContent returns the stored content for the JSON value raw, as
// upstream's _encode_content stores a content value: a JSON string as its
// text, null as NULL, anything else (an array, an object, a number, a
// boolean) as ContentJSONPrefix and the text Python's json.dumps writes.
// Upstream binds a Python int or float as itself, which SQLite stores as
// its text; here a number is structured content like any other value, so
// that it reads back as the number it was.
//
// It returns an error matching ErrInvalidJSON, naming field, when raw is
// not one JSON value or is nested deeper than Python reads, and one
// matching ErrInvalidText for a string holding a lone UTF-16 surrogate
// escape, which no Python str holds as text.
func EncodeContent(field string, raw []byte) (*string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	if raw[0] == '"' {
		if !utf8.Valid(raw) || firstLoneSurrogate(raw) >= 0 {
			return nil, fmt.Errorf("%s: %w", field, ErrInvalidText)
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("%s: %w: %v", field, ErrInvalidJSON, err)
		}
		return &s, nil
	}
	text, err := pyjson.Encode(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", field, err)
	}
	return new(ContentJSONPrefix + text), nil
}

// appendContent appends a content column as upstream's get_messages
// returns it: null for NULL, structured content decoded (the JSON without
// its insignificant white space), any other text as a string.
func appendContent(dst []byte, col *string, scratch *bytes.Buffer) []byte {
	raw := StructuredContent(col)
	if raw == nil {
		return appendText(dst, col)
	}
	scratch.Reset()
	if err := json.Compact(scratch, raw); err != nil {
		return appendText(dst, col)
	}
	return append(dst, scratch.Bytes()...)
}
