package transfer

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/hermesstate/hermesstate/internal/pyjson"
	"github.com/hermesstate/hermesstate/internal/sqlnum"
)

// How each kind of column value is written in an export line. Text is
// written as encoding/json writes a string without HTML escaping (the
// store's exports always were), numbers as the original's json.dumps
// writes the value as Python reads it.

// errNaN is the error for a NaN, which has no JSON form. SQLite stores NaN
// as NULL, so only a caller's own values can hold one.
var errNaN = errors.New("NaN has no JSON form")

// AppendString appends s as a JSON string the way encoding/json writes it
// with SetEscapeHTML(false): <, > and & as they are; ", \ and the control
// characters escaped (\b \f \n \r \t, else \u00XX); U+2028 and U+2029 as
// \u2028 and \u2029; each byte that is not UTF-8 as \ufffd.
func AppendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			dst = append(append(dst, s[start:i]...), `\ufffd`...)
		case c == '\u2028' || c == '\u2029':
			dst = append(append(dst, s[start:i]...), '\\', 'u', '2', '0', '2', hex[c&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(append(dst, s[start:]...), '"')
}

// AppendFloat appends f as Python's json.dumps writes a float (its repr:
// 1750000000.0, 1.5, 1e+20), and ±Inf as ±1e999: Python writes Infinity,
// which is not JSON, and its json.loads reads 1e999 back as inf. It
// returns an error for NaN.
func AppendFloat(dst []byte, f float64) ([]byte, error) {
	switch {
	case math.IsNaN(f):
		return dst, errNaN
	case math.IsInf(f, 1):
		return append(dst, "1e999"...), nil
	case math.IsInf(f, -1):
		return append(dst, "-1e999"...), nil
	}
	return pyjson.AppendFloat(dst, f), nil
}

// appendGoFloat appends f as encoding/json writes a float64: like %g, but
// positional from 1e-6 up to 1e21 and with the exponent unpadded (1e-7).
func appendGoFloat(dst []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if n := len(dst); format == 'e' && n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
		dst[n-2] = dst[n-1]
		dst = dst[:n-1]
	}
	return dst
}

// blobValue is the Go value the store reads a BLOB's CAST to REAL as:
// an infinity the largest float of its sign (store's finite).
func blobValue(f float64) float64 {
	if math.IsInf(f, 0) {
		return math.Copysign(math.MaxFloat64, f)
	}
	return f
}

// appendInt64 appends an integer.
func appendInt64(dst []byte, n int64) []byte { return strconv.AppendInt(dst, n, 10) }

// appendText appends a text column: null for NULL.
func appendText(dst []byte, s *string) []byte {
	if s == nil {
		return append(dst, "null"...)
	}
	return AppendString(dst, *s)
}

// appendStored appends a value of another storage class as the original's
// json.dumps writes it: text as a string, a float in Python's repr. It
// returns false for a BLOB (json.dumps fails on bytes, and the original's
// whole export with it), whose column's Go value is written instead.
func appendStored(dst []byte, stored any) ([]byte, bool, error) {
	switch v := stored.(type) {
	case string:
		return AppendString(dst, v), true, nil
	case float64:
		b, err := AppendFloat(dst, v)
		return b, true, err
	}
	return dst, false, nil
}

// appendInt appends an INTEGER column: its stored value, else the integer
// (a NULL counter as 0, a NULL of a nullable column as null).
func appendInt(dst []byte, n sqlnum.Int, nullable bool) ([]byte, error) {
	if nullable && !n.Valid {
		return append(dst, "null"...), nil
	}
	if b, ok, err := appendStored(dst, n.Stored); ok || err != nil {
		return b, err
	}
	return strconv.AppendInt(dst, n.Int64, 10), nil
}

// appendTime appends a REAL timestamp column: its stored value, else the
// float in Python's repr (±1e999 for ±Inf); a NULL of a NOT NULL column as
// 0.0, of a nullable one as null. A BLOB's value is its CAST, as Go reads
// it: an infinity the largest float of its sign.
func appendTime(dst []byte, r sqlnum.Real, nullable bool) ([]byte, error) {
	if nullable && !r.Valid {
		return append(dst, "null"...), nil
	}
	if b, ok, err := appendStored(dst, r.Stored); ok || err != nil {
		return b, err
	}
	if r.Stored != nil { // a BLOB
		r.Float64 = blobValue(r.Float64)
	}
	return AppendFloat(dst, r.Float64)
}

// appendCost appends a cost column (REAL, nullable) as the store's exports
// always wrote it: an integral value as Python writes the float (0.0,
// 1e+16: Python would read 0 as an int), any other as encoding/json writes
// a float64 (0.25, 5e-7); its stored value, and ±1e999 for ±Inf, as
// appendTime.
func appendCost(dst []byte, r sqlnum.Real) ([]byte, error) {
	if !r.Valid {
		return append(dst, "null"...), nil
	}
	if b, ok, err := appendStored(dst, r.Stored); ok || err != nil {
		return b, err
	}
	f := r.Float64
	switch {
	case r.Stored != nil: // a BLOB
		f = blobValue(f)
	case math.IsInf(f, 0):
		return AppendFloat(dst, f)
	case math.IsNaN(f):
		return dst, errNaN
	}
	if f == math.Trunc(f) {
		return pyjson.AppendFloat(dst, f), nil
	}
	return appendGoFloat(dst, f), nil
}

// appendToolCalls appends tool_calls as the original's get_messages decodes
// it: null for NULL or "", the stored JSON (without insignificant white
// space) when it decodes, [] when it does not. scratch is a buffer to
// reuse.
func appendToolCalls(dst []byte, col *string, scratch *bytes.Buffer) []byte {
	if col == nil || *col == "" {
		return append(dst, "null"...)
	}
	scratch.Reset()
	if err := json.Compact(scratch, []byte(*col)); err != nil {
		return append(dst, "[]"...)
	}
	return append(dst, scratch.Bytes()...)
}
