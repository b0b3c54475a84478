package transfer

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// An import line is decoded by encoding/json, which replaces invalid UTF-8
// and the escape of a lone UTF-16 surrogate ("\ud800") with U+FFFD without
// a word. The store's API refuses such text (ErrInvalidText: a Python str
// could not be written to SQLite from it, nor could one have been read),
// so Parse looks at the raw record first and refuses it, naming the field.
// The one exception is inside tool_calls, which is JSON data Parse
// re-encodes: a lone surrogate there is kept as its \udxxx escape, exactly
// as the original's json.dumps writes it.

// checkText returns an error matching ErrInvalidText, naming the
// field (e.g. "messages[2].content"), for the first string of the record
// raw that holds invalid UTF-8 or a lone surrogate escape; nil otherwise,
// or when raw is not JSON (the decoder reports that).
func checkText(raw []byte) error {
	if utf8.Valid(raw) && firstLoneSurrogate(raw) < 0 {
		return nil // the common case: one pass, no decoding
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	var w textWalk
	prev := int64(0)
	for {
		tok, err := dec.Token()
		if err == io.EOF || err != nil {
			return nil
		}
		end := dec.InputOffset()
		span := raw[prev:end]
		prev = end
		if s, ok := tok.(string); ok && w.expectingKey() {
			if problem := badText(span, false); problem != "" {
				w.key("")
				return fmt.Errorf("a key of %s: %w: %s", cmp.Or(strings.TrimSuffix(w.path(), "."), "the record"), ErrInvalidText, problem)
			}
			w.key(s)
			continue
		}
		if _, ok := tok.(string); ok {
			inToolCalls := strings.Contains(w.path(), "tool_calls")
			if problem := badText(span, inToolCalls); problem != "" {
				return fmt.Errorf("%s: %w: %s", w.path(), ErrInvalidText, problem)
			}
		}
		w.token(tok)
	}
}

// badText describes what is wrong with the raw JSON text of a string
// token, or returns "". Lone surrogates are allowed when surrogatesOK.
func badText(span []byte, surrogatesOK bool) string {
	if !utf8.Valid(span) {
		for i := 0; i < len(span); {
			r, n := utf8.DecodeRune(span[i:])
			if r == utf8.RuneError && n <= 1 {
				return fmt.Sprintf("byte %#x", span[i])
			}
			i += n
		}
	}
	if i := firstLoneSurrogate(span); i >= 0 && !surrogatesOK {
		return fmt.Sprintf("%s is half a UTF-16 surrogate pair", span[i:i+6])
	}
	return ""
}

// firstLoneSurrogate returns the offset of the first \uXXXX escape in the
// JSON text b that is half of a UTF-16 surrogate pair without the other
// half, or -1. JSON has backslashes only inside strings, as escapes.
func firstLoneSurrogate(b []byte) int {
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' {
			continue
		}
		r, ok := unicodeEscape(b, i)
		if !ok {
			i++ // \" \\ \n …: skip the escaped character
			continue
		}
		switch {
		case utf16.IsSurrogate(r) && r < 0xdc00: // a high half: a low one must follow
			if low, ok := unicodeEscape(b, i+6); ok && 0xdc00 <= low && low <= 0xdfff {
				i += 11
				continue
			}
			return i
		case utf16.IsSurrogate(r):
			return i
		}
		i += 5
	}
	return -1
}

// unicodeEscape reads the \uXXXX escape at b[i:].
func unicodeEscape(b []byte, i int) (rune, bool) {
	if i+6 > len(b) || b[i] != '\\' || b[i+1] != 'u' {
		return 0, false
	}
	v, err := strconv.ParseUint(string(b[i+2:i+6]), 16, 32)
	return rune(v), err == nil
}

// textWalk follows the tokens of a JSON document to name where a string
// is: "title", "messages[2].content", "messages[0].tool_calls[1].id".
type textWalk struct {
	stack []textFrame
}

// textFrame is one open array or object.
type textFrame struct {
	array    bool
	index    int    // of an array's current element
	name     string // an object's current key
	wantsKey bool   // an object expects a key next
}

// expectingKey reports whether the next string is an object key.
func (w *textWalk) expectingKey() bool {
	return len(w.stack) > 0 && !w.stack[len(w.stack)-1].array && w.stack[len(w.stack)-1].wantsKey
}

// key records the key just read.
func (w *textWalk) key(name string) {
	top := &w.stack[len(w.stack)-1]
	top.name, top.wantsKey = name, false
}

// token advances past a value token (a delimiter, or a scalar).
func (w *textWalk) token(tok json.Token) {
	switch tok {
	case json.Delim('{'):
		w.stack = append(w.stack, textFrame{wantsKey: true})
		return
	case json.Delim('['):
		w.stack = append(w.stack, textFrame{array: true})
		return
	case json.Delim('}'), json.Delim(']'):
		w.stack = w.stack[:len(w.stack)-1]
	}
	if len(w.stack) > 0 { // one value of the enclosing container is done
		top := &w.stack[len(w.stack)-1]
		if top.array {
			top.index++
		} else {
			top.wantsKey = true
		}
	}
}

// path names the value being read.
func (w *textWalk) path() string {
	var b strings.Builder
	for i, f := range w.stack {
		switch {
		case f.array:
			fmt.Fprintf(&b, "[%d]", f.index)
		case i > 0:
			b.WriteString("." + f.name)
		default:
			b.WriteString(f.name)
		}
	}
	return b.String()
}
