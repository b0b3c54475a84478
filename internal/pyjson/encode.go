package pyjson

import (
	"encoding/json"
	"errors"
)

// ErrInvalid is wrapped by every error Encode and Marshal return for input that is not
// exactly one valid JSON value (or that has invalid UTF-8 inside a string). The wrapping
// error's message names the problem and its byte offset in the input (its text
// names no package: the store's error for a JSON argument is this one).
var ErrInvalid = errors.New("invalid JSON")

// MaxDepth is the deepest nesting of arrays and objects Encode accepts: a
// value nested deeper is refused (an error wrapping ErrInvalid).
//
// CPython's json decoder and encoder recurse once per level inside the
// interpreter's recursion limit (1000 by default), shared with the caller's
// own stack. Measured with Python 3.11.7: json.loads and a json.dumps of
// the result accept 994 levels at the top of a script, 942 from 50 frames
// down and 892 from 100; the original's export_all followed by json.dumps
// of its result accepts 990 levels of tool_calls. One more level makes
// them raise RecursionError, and the original's export of the whole
// database fails. 512 leaves the reader some 480 frames of its own.
const MaxDepth = 512

// Encode re-encodes the JSON text raw in Python json.dumps default format (see the package
// documentation) and returns it. Leading and trailing whitespace is allowed and dropped.
//
// It returns an error wrapping ErrInvalid, with the byte offset of the problem, when raw is
// empty, is not exactly one valid JSON value (trailing data, trailing commas, leading zeros,
// NaN, unescaped control characters, bad escapes ...), or has invalid UTF-8 inside a string.
func Encode(raw []byte) (string, error) {
	s, err := scan(raw)
	if err != nil {
		return "", err
	}
	return string(s.out), nil
}

// Marshal encodes v with encoding/json and passes the result through Encode, returning the
// Python-format text. Note that encoding/json sorts map keys and writes struct fields in
// declaration order; use an ordered json.RawMessage when the key order matters.
//
// It returns encoding/json's error unchanged when v cannot be marshalled (unsupported type,
// NaN float, failing Marshaler ...).
func Marshal(v any) (string, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return Encode(raw)
}
