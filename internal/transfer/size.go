package transfer

import (
	"math/big"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/hermesstate/hermesstate/internal/pyjson"
)

// PythonCompactSize returns the size in bytes of the record raw (valid
// JSON) as upstream's import_sessions measures a session against its caps:
// len(json.dumps(record, ensure_ascii=False, separators=(",", ":"))
// .encode("utf-8")). White space between tokens counts nothing; a string
// counts its UTF-8 bytes with Python's escapes (\" \\ \n \r \t \b \f two
// bytes, other control characters six); an integer its digits, a number
// with a fraction or an exponent its Python float repr (1e2 is 100.0, 1e999
// Infinity). Keys and values are counted in their order, as Python keeps
// them (a repeated key, which Python keeps once, is counted each time).
func PythonCompactSize(raw []byte) int64 {
	var n int64
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '"':
			size, next := stringSize(raw, i+1)
			n += size
			i = next
		case c == '-' || (c >= '0' && c <= '9'):
			j := i + 1
			for j < len(raw) && isNumberByte(raw[j]) {
				j++
			}
			n += numberSize(string(raw[i:j]))
			i = j
		default: // { } [ ] , : and the letters of true, false, null
			n++
			i++
		}
	}
	return n
}

func isNumberByte(c byte) bool {
	return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'
}

// numberSize is the length of Python's json.dumps of the number literal s.
func numberSize(s string) int64 {
	isInt := true
	for i := 0; i < len(s); i++ {
		if s[i] == '.' || s[i] == 'e' || s[i] == 'E' {
			isInt = false
			break
		}
	}
	if isInt {
		var z big.Int
		if _, ok := z.SetString(s, 10); ok {
			return int64(len(z.String())) // "-0" is 0
		}
		return int64(len(s))
	}
	f, _ := strconv.ParseFloat(s, 64) // out of range: ±Inf, as Python reads it
	return int64(len(pyjson.AppendFloat(nil, f)))
}

// stringSize returns the size of the JSON string whose content starts at
// raw[i] (after its opening quote), quotes included, as Python writes it
// with ensure_ascii=False, and the index after its closing quote.
func stringSize(raw []byte, i int) (int64, int) {
	n := int64(2)
	for i < len(raw) {
		c := raw[i]
		switch {
		case c == '"':
			return n, i + 1
		case c == '\\' && i+1 < len(raw):
			if raw[i+1] != 'u' {
				n += escapedSize(rune(sizeUnescape(raw[i+1])))
				i += 2
				continue
			}
			r, next := sizeUnicodeEscape(raw, i)
			n += escapedSize(r)
			i = next
		default:
			r, size := utf8.DecodeRune(raw[i:])
			n += escapedSize(r)
			i += size
		}
	}
	return n, i
}

// sizeUnescape is the character of a one-letter JSON escape.
func sizeUnescape(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	}
	return c // " \ /
}

// sizeUnicodeEscape reads \uXXXX at raw[i] (and the low half of a surrogate
// pair after it) and returns the code point and the index after it.
func sizeUnicodeEscape(raw []byte, i int) (rune, int) {
	hex := func(at int) (rune, bool) {
		if at+6 > len(raw) || raw[at] != '\\' || raw[at+1] != 'u' {
			return 0, false
		}
		v, err := strconv.ParseUint(string(raw[at+2:at+6]), 16, 16)
		return rune(v), err == nil
	}
	r, ok := hex(i)
	if !ok {
		return utf8.RuneError, i + 2
	}
	if utf16.IsSurrogate(r) {
		if lo, ok := hex(i + 6); ok {
			if pair := utf16.DecodeRune(r, lo); pair != utf8.RuneError {
				return pair, i + 12
			}
		}
	}
	return r, i + 6
}

// escapedSize is the bytes Python's json.dumps(ensure_ascii=False) writes
// for r.
func escapedSize(r rune) int64 {
	switch {
	case r == '"' || r == '\\' || r == '\n' || r == '\r' || r == '\t' || r == '\b' || r == '\f':
		return 2
	case r < 0x20:
		return 6
	case utf16.IsSurrogate(r): // a lone half: three bytes as Python holds it
		return 3
	}
	return int64(utf8.RuneLen(r))
}
