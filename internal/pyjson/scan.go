package pyjson

import (
	"bytes"
	"fmt"
)

// scanner validates one JSON value and re-encodes it into out in Python json.dumps default
// format. It is an explicit state machine over a stack of open containers, so nesting depth
// is bounded only by memory (one byte per level), never by the goroutine stack.
type scanner struct {
	data  []byte
	pos   int
	out   []byte
	stack []byte // open containers, '[' or '{', innermost last

	first byte // first byte of the top-level value: one of n t f " [ { - 0-9
	count int  // values directly inside a top-level array (elements) or object (members)
}

// scan validates raw and returns the finished scanner: out holds the Python-format text and
// first and count describe the top-level value.
func scan(raw []byte) (*scanner, error) {
	// Room for the added separator spaces; non-ASCII text grows further via append.
	s := &scanner{data: raw, out: make([]byte, 0, len(raw)+len(raw)/8+8)}
	return s, s.run()
}

// Scanner states.
const (
	stateValue = iota // expecting a value
	stateKey          // expecting an object key (after '{' or ',')
	stateAfter        // a value just ended
)

// run scans s.data, which must hold exactly one JSON value surrounded by optional whitespace.
func (s *scanner) run() error {
	state := stateValue
	for {
		switch state {
		case stateValue:
			if err := s.value(&state); err != nil {
				return err
			}
		case stateKey:
			s.skipSpace()
			if s.pos >= len(s.data) || s.data[s.pos] != '"' {
				return s.fail("expecting a string object key")
			}
			if err := s.str(); err != nil {
				return err
			}
			s.skipSpace()
			if s.pos >= len(s.data) || s.data[s.pos] != ':' {
				return s.fail("expecting ':' after object key")
			}
			s.pos++
			s.out = append(s.out, ':', ' ')
			state = stateValue
		case stateAfter:
			s.skipSpace()
			if len(s.stack) == 0 {
				if s.pos != len(s.data) {
					return s.fail("trailing data after the JSON value")
				}
				return nil
			}
			if s.pos >= len(s.data) {
				return s.fail("unexpected end of input inside a container")
			}
			top := s.stack[len(s.stack)-1]
			switch c := s.data[s.pos]; {
			case c == ',':
				s.pos++
				s.out = append(s.out, ',', ' ')
				if top == '{' {
					state = stateKey
				} else {
					state = stateValue
				}
			case c == ']' && top == '[', c == '}' && top == '{':
				s.pos++
				s.out = append(s.out, c)
				s.stack = s.stack[:len(s.stack)-1]
			default:
				return s.fail(fmt.Sprintf("invalid character %q after a value, expecting ',' or '%c'", c, top+2))
			}
		}
	}
}

// value scans one value at s.pos (after optional whitespace) and sets *state to what comes next.
func (s *scanner) value(state *int) error {
	s.skipSpace()
	if s.pos >= len(s.data) {
		return s.fail("unexpected end of input, expecting a value")
	}
	c := s.data[s.pos]
	switch len(s.stack) {
	case 0:
		s.first = c
	case 1:
		s.count++
	}
	*state = stateAfter
	switch {
	case c == '{' || c == '[':
		if len(s.stack) >= MaxDepth {
			return s.fail(fmt.Sprintf("nested deeper than %d levels (Python's json could not read it back)", MaxDepth))
		}
		s.pos++
		s.out = append(s.out, c)
		s.skipSpace()
		if s.pos < len(s.data) && s.data[s.pos] == c+2 { // '}' == '{'+2, ']' == '['+2
			s.pos++
			s.out = append(s.out, c+2)
			return nil
		}
		s.stack = append(s.stack, c)
		if c == '{' {
			*state = stateKey
		} else {
			*state = stateValue
		}
		return nil
	case c == '"':
		return s.str()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || isDigit(c):
		return s.number()
	default:
		return s.fail(fmt.Sprintf("invalid character %q looking for the beginning of a value", c))
	}
}

// literal copies the keyword lit (true, false or null) that must start at s.pos.
func (s *scanner) literal(lit string) error {
	if !bytes.HasPrefix(s.data[s.pos:], []byte(lit)) {
		return s.fail("invalid literal, expecting " + lit)
	}
	s.pos += len(lit)
	s.out = append(s.out, lit...)
	return nil
}

// number validates the JSON number at s.pos and copies its text verbatim.
// Grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) number() error {
	d, i := s.data, s.pos
	if d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && isDigit(d[i]):
		i = skipDigits(d, i)
	default:
		return s.failAt(i, "invalid number, expecting a digit")
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) || !isDigit(d[i]) {
			return s.failAt(i, "invalid number, expecting a digit after '.'")
		}
		i = skipDigits(d, i)
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || !isDigit(d[i]) {
			return s.failAt(i, "invalid number, expecting a digit in the exponent")
		}
		i = skipDigits(d, i)
	}
	s.out = append(s.out, d[s.pos:i]...)
	s.pos = i
	return nil
}

// skipSpace advances past JSON whitespace (space, \t, \n, \r — the same set as Python's json).
func (s *scanner) skipSpace() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// fail returns an error wrapping ErrInvalid that reports msg at the current offset.
func (s *scanner) fail(msg string) error { return s.failAt(s.pos, msg) }

// failAt returns an error wrapping ErrInvalid that reports msg at byte offset pos.
func (s *scanner) failAt(pos int, msg string) error {
	return fmt.Errorf("%w: %s at offset %d", ErrInvalid, msg, pos)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func skipDigits(d []byte, i int) int {
	for i < len(d) && isDigit(d[i]) {
		i++
	}
	return i
}
