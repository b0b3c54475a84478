package sqlnum

import (
	"math"
	"strconv"
)

// TextToInt is CAST(s AS INTEGER) for text: after leading white space, an
// optional sign and the digits that follow it, stopping at the first other
// byte; the nearest int64 bound when the digits exceed them; 0 when there
// are no digits ("abc", "0x10", ".5").
func TextToInt(s string) int64 {
	i := skipSpace(s)
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	var v uint64 // the magnitude, capped just above MaxInt64
	for ; i < len(s) && isDigit(s[i]); i++ {
		if v <= math.MaxInt64 {
			v = v*10 + uint64(s[i]-'0')
		}
	}
	switch {
	case neg && v > math.MaxInt64:
		return math.MinInt64
	case neg:
		return -int64(v)
	case v > math.MaxInt64:
		return math.MaxInt64
	}
	return int64(v)
}

// TextToReal is CAST(s AS REAL) for text: the longest prefix after leading
// white space that reads as a decimal number (sign, digits, a fraction, an
// exponent with digits), rounded to the nearest float64, ±Inf beyond its
// range; 0 when there is none ("abc", "inf", "0x10").
func TextToReal(s string) float64 {
	start := skipSpace(s)
	i := start
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for ; i < len(s) && isDigit(s[i]); i++ {
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for ; i < len(s) && isDigit(s[i]); i++ {
			digits++
		}
	}
	if digits == 0 {
		return 0
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && isDigit(s[j]) {
			for j < len(s) && isDigit(s[j]) {
				j++
			}
			i = j
		}
	}
	// The prefix is a valid Go float literal except for a trailing ".",
	// which ParseFloat accepts too; out of range it returns ±Inf or 0.
	f, _ := strconv.ParseFloat(s[start:i], 64)
	return f
}

// skipSpace returns the index of the first byte of s that is not SQLite's
// white space (space, \t, \n, \v, \f, \r).
func skipSpace(s string) int {
	i := 0
	for i < len(s) && (s[i] == ' ' || ('\t' <= s[i] && s[i] <= '\r')) {
		i++
	}
	return i
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
