package pyjson

import "unicode/utf8"

// plain marks the bytes Python's ensure_ascii encoder writes unchanged: printable ASCII
// 0x20–0x7E except '"' and '\\'.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

const hexDigits = "0123456789abcdef"

// str scans the JSON string starting at s.pos (which holds '"'), decoding its escapes and
// writing it re-escaped the way Python's json.dumps(ensure_ascii=True) would.
func (s *scanner) str() error {
	d := s.data
	i := s.pos + 1
	s.out = append(s.out, '"')
	start := i // start of the pending run of plain bytes, copied in bulk
	for {
		if i >= len(d) {
			return s.failAt(i, "unexpected end of input inside a string")
		}
		c := d[i]
		if plain[c] {
			i++
			continue
		}
		s.out = append(s.out, d[start:i]...)
		switch {
		case c == '"':
			s.pos = i + 1
			s.out = append(s.out, '"')
			return nil
		case c == '\\':
			n, err := s.escape(i)
			if err != nil {
				return err
			}
			i += n
		case c < 0x20:
			return s.failAt(i, "invalid control character in string")
		case c == 0x7f:
			s.appendUnit(0x7f)
			i++
		default:
			r, size := utf8.DecodeRune(d[i:])
			if r == utf8.RuneError && size == 1 {
				return s.failAt(i, "invalid UTF-8 in string")
			}
			if r >= 0x10000 {
				r -= 0x10000
				s.appendUnit(0xd800 + r>>10)
				s.appendUnit(0xdc00 + r&0x3ff)
			} else {
				s.appendUnit(r)
			}
			i += size
		}
		start = i
	}
}

// escape decodes the backslash escape at d[i] and writes its Python re-encoding.
// It returns the length of the escape in the input.
func (s *scanner) escape(i int) (int, error) {
	d := s.data
	if i+1 >= len(d) {
		return 0, s.failAt(i, "unexpected end of input in a string escape")
	}
	switch d[i+1] {
	case '"', '\\', 'b', 'f', 'n', 'r', 't':
		s.out = append(s.out, '\\', d[i+1])
		return 2, nil
	case '/':
		s.out = append(s.out, '/')
		return 2, nil
	case 'u':
		if i+6 > len(d) {
			return 0, s.failAt(i, "invalid \\uXXXX escape")
		}
		var u rune
		for _, h := range d[i+2 : i+6] {
			var v byte
			switch {
			case '0' <= h && h <= '9':
				v = h - '0'
			case 'a' <= h && h <= 'f':
				v = h - 'a' + 10
			case 'A' <= h && h <= 'F':
				v = h - 'A' + 10
			default:
				return 0, s.failAt(i, "invalid \\uXXXX escape")
			}
			u = u<<4 | rune(v)
		}
		// Python decodes the escape (pairing surrogates when possible) and re-escapes the
		// result; re-escaping each UTF-16 code unit on its own gives the same text, including
		// for lone surrogates, which Python keeps and writes back as \udxxx.
		s.appendUnit(u)
		return 6, nil
	default:
		return 0, s.failAt(i, "invalid escape character in string")
	}
}

// appendUnit writes one UTF-16 code unit u (or an ASCII character) as Python's
// ensure_ascii encoder does.
func (s *scanner) appendUnit(u rune) {
	if u < utf8.RuneSelf && plain[u] {
		s.out = append(s.out, byte(u))
		return
	}
	switch u {
	case '"':
		s.out = append(s.out, '\\', '"')
	case '\\':
		s.out = append(s.out, '\\', '\\')
	case '\b':
		s.out = append(s.out, '\\', 'b')
	case '\f':
		s.out = append(s.out, '\\', 'f')
	case '\n':
		s.out = append(s.out, '\\', 'n')
	case '\r':
		s.out = append(s.out, '\\', 'r')
	case '\t':
		s.out = append(s.out, '\\', 't')
	default:
		s.out = append(s.out, '\\', 'u',
			hexDigits[u>>12&0xf], hexDigits[u>>8&0xf], hexDigits[u>>4&0xf], hexDigits[u&0xf])
	}
}
