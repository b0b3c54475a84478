package migrations

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/hermesstate/hermesstate/internal/pyjson"
)

// pyValue is a JSON value as Python's json.loads returns it: nil (None),
// bool, pyInt (an int of any size), float64 (NaN and ±Infinity included),
// string, []pyValue (list) or *pyObject (dict). The v18 step reads the
// gateway's sessions.json with it, to bind and re-serialise exactly what
// upstream's Python does.
type pyValue any

// pyInt is a Python int, as its decimal text ("-0" read as "0").
type pyInt string

// pyObject is a Python dict from json.loads: keys in first-seen order, a
// repeated key keeping its first position and its last value.
type pyObject struct {
	keys   []string
	values map[string]pyValue
}

func (o *pyObject) get(key string) pyValue { return o.values[key] }

// pyMaxDepth bounds the nesting parsePy accepts; deeper input is refused
// (Python's own parser gives up at its recursion limit, near 1000).
const pyMaxDepth = 512

// pyIntMaxDigits is Python 3.11's limit on the digits of an int read from
// text (sys.get_int_max_str_digits): json.loads refuses longer ones.
const pyIntMaxDigits = 4300

// errPyJSON is what parsePy returns for text Python's json.loads refuses.
var errPyJSON = errors.New("not JSON Python reads")

// parsePy parses text as Python's json.loads does with its defaults: one
// value between optional whitespace (space, tab, newline, carriage return),
// NaN, Infinity and -Infinity accepted, no control characters inside
// strings. A string holding a lone surrogate (\ud800) is refused too: a Go
// string cannot hold it (Python could, and would then fail to bind it).
func parsePy(text string) (pyValue, error) {
	if !utf8.ValidString(text) {
		return nil, fmt.Errorf("%w: invalid UTF-8", errPyJSON)
	}
	p := &pyParser{s: text}
	p.space()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i != len(p.s) {
		return nil, p.fail("extra data")
	}
	return v, nil
}

type pyParser struct {
	s string
	i int
}

func (p *pyParser) fail(what string) error {
	return fmt.Errorf("%w: %s at offset %d", errPyJSON, what, p.i)
}

func (p *pyParser) space() {
	for p.i < len(p.s) && strings.IndexByte(" \t\n\r", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *pyParser) literal(word string) bool {
	if strings.HasPrefix(p.s[p.i:], word) {
		p.i += len(word)
		return true
	}
	return false
}

func (p *pyParser) value(depth int) (pyValue, error) {
	if depth > pyMaxDepth {
		return nil, p.fail("nested too deep")
	}
	if p.i >= len(p.s) {
		return nil, p.fail("expecting value")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		return p.str()
	case p.literal("null"):
		return nil, nil
	case p.literal("true"):
		return true, nil
	case p.literal("false"):
		return false, nil
	case p.literal("NaN"):
		return math.NaN(), nil
	case p.literal("Infinity"):
		return math.Inf(1), nil
	case p.literal("-Infinity"):
		return math.Inf(-1), nil
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	}
	return nil, p.fail("expecting value")
}

func (p *pyParser) object(depth int) (pyValue, error) {
	p.i++ // {
	o := &pyObject{values: map[string]pyValue{}}
	p.space()
	if p.literal("}") {
		return o, nil
	}
	for {
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			return nil, p.fail("expecting property name")
		}
		k, err := p.str()
		if err != nil {
			return nil, err
		}
		p.space()
		if !p.literal(":") {
			return nil, p.fail("expecting ':'")
		}
		p.space()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		key := k.(string)
		if _, seen := o.values[key]; !seen {
			o.keys = append(o.keys, key)
		}
		o.values[key] = v
		p.space()
		if p.literal("}") {
			return o, nil
		}
		if !p.literal(",") {
			return nil, p.fail("expecting ',' delimiter")
		}
	}
}

func (p *pyParser) array(depth int) (pyValue, error) {
	p.i++ // [
	out := []pyValue{}
	p.space()
	if p.literal("]") {
		return out, nil
	}
	for {
		p.space()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		p.space()
		if p.literal("]") {
			return out, nil
		}
		if !p.literal(",") {
			return nil, p.fail("expecting ',' delimiter")
		}
	}
}

func (p *pyParser) str() (pyValue, error) {
	p.i++ // "
	var b strings.Builder
	for {
		if p.i >= len(p.s) {
			return nil, p.fail("unterminated string")
		}
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return b.String(), nil
		case c < 0x20:
			return nil, p.fail("invalid control character")
		case c != '\\':
			b.WriteByte(c)
			p.i++
			continue
		}
		p.i++
		if p.i >= len(p.s) {
			return nil, p.fail("unterminated string")
		}
		esc := p.s[p.i]
		p.i++
		if short := strings.IndexByte(`"\/bfnrt`, esc); short >= 0 {
			b.WriteByte("\"\\/\b\f\n\r\t"[short])
			continue
		}
		if esc != 'u' {
			return nil, p.fail("invalid \\escape")
		}
		r, ok := p.hex4()
		if !ok {
			return nil, p.fail("invalid \\uXXXX escape")
		}
		if utf16.IsSurrogate(r) {
			lo, ok := rune(0), false
			if r < 0xdc00 && p.literal(`\u`) {
				lo, ok = p.hex4()
			}
			if !ok || lo < 0xdc00 || lo > 0xdfff {
				return nil, p.fail("lone surrogate")
			}
			r = utf16.DecodeRune(r, lo)
		}
		b.WriteRune(r)
	}
}

func (p *pyParser) hex4() (rune, bool) {
	if p.i+4 > len(p.s) {
		return 0, false
	}
	n, err := strconv.ParseUint(p.s[p.i:p.i+4], 16, 32)
	if err != nil { // ParseUint takes no sign, prefix or underscore
		return 0, false
	}
	p.i += 4
	return rune(n), true
}

func (p *pyParser) number() (pyValue, error) {
	start := p.i
	digits := func() int {
		n := 0
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	p.literal("-")
	switch {
	case p.literal("0"):
	case digits() == 0:
		return nil, p.fail("expecting value")
	}
	isFloat := false
	if p.i+1 < len(p.s) && p.s[p.i] == '.' && p.s[p.i+1] >= '0' && p.s[p.i+1] <= '9' {
		p.i++
		digits()
		isFloat = true
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		save := p.i
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			p.i = save // Python's number pattern stops before a bare "e"
		} else {
			isFloat = true
		}
	}
	text := p.s[start:p.i]
	if isFloat {
		f, err := strconv.ParseFloat(text, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return nil, p.fail("bad number")
		}
		return f, nil // overflow reads as ±Inf, underflow as 0, as in Python
	}
	if len(strings.TrimPrefix(text, "-")) > pyIntMaxDigits {
		return nil, p.fail("integer string too long")
	}
	if text == "-0" {
		text = "0"
	}
	return pyInt(text), nil
}

// pyTruthy is Python's bool(v).
func pyTruthy(v pyValue) bool {
	switch v := v.(type) {
	case nil:
		return false
	case bool:
		return v
	case pyInt:
		return v != "0"
	case float64:
		return v != 0 // NaN is truthy
	case string:
		return v != ""
	case []pyValue:
		return len(v) > 0
	case *pyObject:
		return len(v.keys) > 0
	}
	return true
}

// pyStr is Python's str(v) for the scalar values; ok is false for a list or
// a dict, whose text is Python's repr and never a session id.
func pyStr(v pyValue) (s string, ok bool) {
	switch v := v.(type) {
	case nil:
		return "None", true
	case bool:
		if v {
			return "True", true
		}
		return "False", true
	case pyInt:
		return string(v), true
	case float64:
		switch {
		case math.IsNaN(v):
			return "nan", true
		case math.IsInf(v, 1):
			return "inf", true
		case math.IsInf(v, -1):
			return "-inf", true
		}
		return string(pyjson.AppendFloat(nil, v)), true
	case string:
		return v, true
	}
	return "", false
}

// errUnbindable is what pyBind returns for a value Python's sqlite3 module
// refuses to bind.
var errUnbindable = errors.New("a value sqlite3 cannot bind")

// pyBind returns v as Python's sqlite3 module binds it: None as NULL, a bool
// as 0/1, an int as a 64-bit integer, a float as a REAL, a str as TEXT. A
// list, a dict or an int outside 64 bits fails, as it does in Python
// (ProgrammingError, OverflowError).
func pyBind(v pyValue) (any, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case bool:
		if v {
			return int64(1), nil
		}
		return int64(0), nil
	case pyInt:
		n, ok := new(big.Int).SetString(string(v), 10)
		if !ok || !n.IsInt64() {
			return nil, fmt.Errorf("%w: %s is too large for a SQLite integer", errUnbindable, v)
		}
		return n.Int64(), nil
	case float64, string:
		return v, nil
	}
	return nil, fmt.Errorf("%w: %T", errUnbindable, v)
}

// pyDumps returns json.dumps(v) with Python's defaults: ", " and ": "
// separators, keys in order, ensure_ascii, floats as repr (NaN, Infinity,
// -Infinity as Python writes them).
func pyDumps(v pyValue) (string, error) {
	var b strings.Builder
	if err := pyDump(&b, v); err != nil {
		return "", err
	}
	return b.String(), nil
}

func pyDump(b *strings.Builder, v pyValue) error {
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case pyInt:
		b.WriteString(string(v))
	case float64:
		b.Write(pyjson.AppendFloat(nil, v))
	case string:
		s, err := pyjson.Marshal(v)
		if err != nil {
			return err
		}
		b.WriteString(s)
	case []pyValue:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteString(", ")
			}
			if err := pyDump(b, e); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case *pyObject:
		b.WriteByte('{')
		for i, k := range v.keys {
			if i > 0 {
				b.WriteString(", ")
			}
			if err := pyDump(b, k); err != nil {
				return err
			}
			b.WriteString(": ")
			if err := pyDump(b, v.values[k]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	default:
		return fmt.Errorf("migrations: no JSON for %T", v)
	}
	return nil
}
