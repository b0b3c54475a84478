package pyjson

import (
	"encoding/json"
	"errors"
)

// ErrInvalid is wrapped by every error Encode and Marshal return for input that is not
// exactly one valid JSON value (or that has invalid UTF-8 inside a string). The wrapping
// error's message names the problem and its byte offset in the input.
var ErrInvalid = errors.New("pyjson: invalid JSON")

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
