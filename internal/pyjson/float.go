package pyjson

import (
	"math"
	"strconv"
)

// AppendFloat appends f as Python's json.dumps writes a float (its repr):
// the shortest digits that read back as f, in positional form with at
// least one digit after the point when the decimal exponent is from -4 to
// 16 ("1.5", "100.0", "0.0001", "1e+16" is the first exponential), else
// as digits, "e", a sign and at least two exponent digits ("1e-05",
// "9.223372036854776e+18"); "-0.0" keeps its sign. NaN, Infinity and
// -Infinity are appended as Python writes them, which is not JSON; callers
// that need valid JSON must replace them first.
func AppendFloat(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "NaN"...)
	case math.IsInf(f, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(f, -1):
		return append(dst, "-Infinity"...)
	}
	if math.Signbit(f) {
		dst = append(dst, '-')
		f = -f
	}
	// 'e' with precision -1 gives the shortest digits: d.ddde±XX.
	e := strconv.AppendFloat(nil, f, 'e', -1, 64)
	mant, exp := e, 0
	for i, c := range e {
		if c == 'e' {
			mant = e[:i]
			exp, _ = strconv.Atoi(string(e[i+1:]))
			break
		}
	}
	digits := make([]byte, 0, len(mant))
	for _, c := range mant {
		if c != '.' {
			digits = append(digits, c)
		}
	}
	point := exp + 1 // digits[:point] come before the decimal point
	if point <= -4 || point > 16 {
		dst = append(dst, digits[0])
		if len(digits) > 1 {
			dst = append(dst, '.')
			dst = append(dst, digits[1:]...)
		}
		dst = append(dst, 'e')
		if exp < 0 {
			dst, exp = append(dst, '-'), -exp
		} else {
			dst = append(dst, '+')
		}
		if exp < 10 {
			dst = append(dst, '0')
		}
		return strconv.AppendInt(dst, int64(exp), 10)
	}
	switch {
	case point <= 0:
		dst = append(dst, '0', '.')
		for range -point {
			dst = append(dst, '0')
		}
		return append(dst, digits...)
	case point >= len(digits):
		dst = append(dst, digits...)
		for range point - len(digits) {
			dst = append(dst, '0')
		}
		return append(dst, '.', '0')
	}
	dst = append(dst, digits[:point]...)
	dst = append(dst, '.')
	return append(dst, digits[point:]...)
}
