package store

import (
	"fmt"
	"strconv"
)

// The one rule for the store's errors (the package doc's Errors section):
// every exported function and method returns its error through wrap or
// wrapOn, once, at its boundary, so that the message names the package and
// the operation once: `store: append message to "s1": no such session`.
// Nothing below the boundary says "store:" (a helper adds only what the
// operation does not say: "message 3: ", "line 12: ", `session "x": `),
// no sentinel does, and no exported method calls another one for a result
// it returns, which would name two operations.

// wrap prefixes *err, unless it is nil, with "store: " and op.
func wrap(err *error, op string) {
	if *err != nil {
		*err = fmt.Errorf("store: %s: %w", op, *err)
	}
}

// wrapOn is wrap for an operation on one session, title, key or query:
// op, then subject quoted (see quote).
func wrapOn(err *error, op, subject string) {
	if *err != nil {
		*err = fmt.Errorf("store: %s %s: %w", op, quote(subject), *err)
	}
}

// maxQuoted is how many code points of an id, title, key or query a
// message quotes: any of them may be megabytes long.
const maxQuoted = 64

// quote is s quoted as Go quotes it (invalid UTF-8 as \xff), cut after
// maxQuoted code points with "…" after the closing quote.
func quote(s string) string {
	n := 0
	for i := range s {
		if n == maxQuoted {
			return strconv.Quote(s[:i]) + "…"
		}
		n++
	}
	return strconv.Quote(s)
}
