package pyjson

import "strconv"

// Truthy reports whether raw is a JSON value Python treats as truthy after json.loads: it
// returns false for null, false, any zero number (0, -0, 0.0, 0e5, and floats that underflow
// to zero such as 1e-400), "" and the empty containers [] and {}, and true for every other
// valid value. Invalid JSON (including empty input) returns false; no error is reported.
func Truthy(raw []byte) bool {
	s, err := scan(raw)
	return err == nil && s.truthy()
}

// truthy is Truthy for a scanned value.
func (s *scanner) truthy() bool {
	switch s.first {
	case 'n', 'f':
		return false
	case 't':
		return true
	case '"':
		return len(s.out) > len(`""`) // every escape decodes to at least one character
	case '[', '{':
		return s.count > 0
	default: // number; out holds its text verbatim
		return !isZeroNumber(string(s.out))
	}
}

// isZeroNumber reports whether the valid JSON number text n is zero once Python parses it:
// integers (no fraction or exponent) become int, everything else float.
func isZeroNumber(n string) bool {
	for i := 0; i < len(n); i++ {
		if c := n[i]; c == '.' || c == 'e' || c == 'E' {
			// Go and Python both round correctly: overflow gives ±Inf (truthy), underflow 0.
			f, _ := strconv.ParseFloat(n, 64)
			return f == 0
		}
	}
	return n == "0" || n == "-0" // the only integer spellings of zero the grammar allows
}

// CountCalls returns the original's tool-call count for a tool_calls value
// (0 if None, len if list, else 1): 0 for absent input (empty or only whitespace) and null,
// the number of elements for an array, and 1 for any other valid value, including {}, "", 0
// and false. Invalid JSON returns 0; callers reject it with Encode before storing anything.
func CountCalls(raw []byte) int {
	s, err := scan(raw)
	if err != nil {
		return 0
	}
	return s.calls()
}

// calls is CountCalls for a scanned value.
func (s *scanner) calls() int {
	switch s.first {
	case 'n':
		return 0
	case '[':
		return s.count
	default:
		return 1
	}
}

// Value is one JSON value as Python stores it, with what the store asks of
// it before writing.
type Value struct {
	Text   string // Encode's output
	Truthy bool   // Truthy's answer
	Calls  int    // CountCalls' answer
}

// Analyze is Encode, Truthy and CountCalls in one pass over raw, for a
// write path that needs all three (a 10 MB tool-call list is scanned once,
// not three times). It returns Encode's errors.
func Analyze(raw []byte) (Value, error) {
	s, err := scan(raw)
	if err != nil {
		return Value{}, err
	}
	return Value{Text: string(s.out), Truthy: s.truthy(), Calls: s.calls()}, nil
}
