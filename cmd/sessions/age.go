package main

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/hermesstate/hermesstate/internal/cli"
)

// ageUnits are the suffixes of an age: hours, days and weeks. There is no
// minute or month: "1m" is refused rather than read as either.
var ageUnits = map[string]time.Duration{"h": time.Hour, "d": 24 * time.Hour, "w": 7 * 24 * time.Hour}

// agePattern is a whole number, optionally followed by a unit (spaces
// allowed between them, as Hermes allows).
var agePattern = regexp.MustCompile(`^([0-9]+) *([hdw]?)$`)

// isoLayouts are the ISO 8601 dates and date-times an age may be, as
// Hermes's datetime.fromisoformat reads them: a date, or a date and a time
// to the minute or second (fractions allowed) after "T" or a space, with or
// without a zone ("Z" or "+02:00"). Without one it is local time.
var isoLayouts = []string{
	"2006-01-02",
	"2006-01-02T15:04", "2006-01-02T15:04:05.999999999",
	"2006-01-02T15:04Z07:00", "2006-01-02T15:04:05.999999999Z07:00",
}

// parseAge reads an age as Hermes's `sessions prune --older-than` does and
// returns the time before which a session must have started: a bare whole
// number is days ("90"), a number with h, d or w is hours, days or weeks
// ("36h", "90d", "2w"), all before now; an ISO date or date-time
// ("2025-06-01", "2025-06-01 14:30") is that moment. flag names the flag
// in the error. Anything else, and a zero or negative age, is a usage
// error, never a guess.
func parseAge(flag, s string, now time.Time) (time.Time, error) {
	in := strings.ToLower(strings.TrimSpace(s))
	if m := agePattern.FindStringSubmatch(in); m != nil {
		n, err := strconv.ParseInt(m[1], 10, 64)
		unit := ageUnits[m[2]]
		if m[2] == "" {
			unit = ageUnits["d"]
		}
		switch {
		case err != nil || n > math.MaxInt64/int64(unit):
			return time.Time{}, cli.Usagef("%s: %q is too long an age", flag, s)
		case n == 0:
			return time.Time{}, cli.Usagef("%s: %q is not an age: it must be more than 0", flag, s)
		}
		return now.Add(-time.Duration(n) * unit), nil
	}
	iso := strings.Replace(strings.ToUpper(strings.TrimSpace(s)), " ", "T", 1)
	for _, layout := range isoLayouts {
		if t, err := time.ParseInLocation(layout, iso, time.Local); err == nil {
			return t, nil
		}
	}
	return time.Time{}, cli.Usagef(`%s: %q is not an age: give days (90), hours, days or weeks (36h, 90d, 2w), `+
		`or a date or time (2025-06-01, "2025-06-01 14:30")`, flag, s)
}
