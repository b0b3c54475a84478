package main

import (
	"fmt"
	"io"

	"github.com/hermesstate/hermesstate/store"
)

// maxListed is how many sessions a confirmation lists one by one; past it
// only their number and time span are shown.
const maxListed = 20

// printSessions prints sessions under a header as an indented table (id,
// title, source, start), or, with more than limit of them (limit < 0: no
// limit), the header with the span of their start times instead. The
// header ends with ":" when rows follow it.
func printSessions(w io.Writer, header string, sessions []store.Session, limit int) error {
	if len(sessions) == 0 {
		_, err := fmt.Fprintln(w, header)
		return err
	}
	if limit >= 0 && len(sessions) > limit {
		oldest, newest := sessions[0].StartedAt, sessions[0].StartedAt
		for _, s := range sessions {
			oldest, newest = min(oldest, s.StartedAt), max(newest, s.StartedAt)
		}
		_, err := fmt.Fprintf(w, "%s; started from %s to %s\n", header,
			localTime(oldest, minuteLayout), localTime(newest, minuteLayout))
		return err
	}
	if _, err := fmt.Fprintf(w, "%s:\n", header); err != nil {
		return err
	}
	var t table
	for _, s := range sessions {
		t.row("  "+cell(s.ID), cell(deref(s.Title)), cell(s.Source), localTime(s.StartedAt, minuteLayout))
	}
	return t.write(w)
}

// these says "this session and all its messages" or "these 2 sessions and
// all their messages", for a question.
func these(n int) string {
	if n == 1 {
		return "this session and all its messages"
	}
	return fmt.Sprintf("these %s and all their messages", plural(int64(n), "session"))
}

// sessionIDs returns the sessions' ids, in order.
func sessionIDs(sessions []store.Session) []string {
	ids := make([]string, len(sessions))
	for i, s := range sessions {
		ids[i] = s.ID
	}
	return ids
}
