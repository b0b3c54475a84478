package corpus

import (
	"fmt"
	"strconv"
	"strings"
)

// FileName is the corpus file of n messages and seed: corpus-100k-s1.db.
func FileName(n int, seed uint64) string {
	return fmt.Sprintf("corpus-%s-s%d.db", SizeLabel(n), seed)
}

// SizeLabel writes n as 100k or 1m when it is a whole number of those.
func SizeLabel(n int) string {
	switch {
	case n%1_000_000 == 0:
		return strconv.Itoa(n/1_000_000) + "m"
	case n%1000 == 0:
		return strconv.Itoa(n/1000) + "k"
	}
	return strconv.Itoa(n)
}

// ParseSize reads a message count: digits with an optional k or m suffix.
func ParseSize(s string) (int, error) {
	digits := strings.ToLower(strings.TrimSpace(s))
	mult := 1
	switch {
	case strings.HasSuffix(digits, "k"):
		mult, digits = 1000, digits[:len(digits)-1]
	case strings.HasSuffix(digits, "m"):
		mult, digits = 1_000_000, digits[:len(digits)-1]
	}
	n, err := strconv.Atoi(digits)
	if err != nil || n*mult < 2 {
		return 0, fmt.Errorf("size %q: want a count of at least 2, like 100k or 1m", s)
	}
	return n * mult, nil
}
