package store

import (
	"fmt"
	"math"
	"testing"
)

// TestRowsCapacity checks the bound on a result slice's first capacity:
// the stored counter within 0 and maxRowsCapacity.
func TestRowsCapacity(t *testing.T) {
	for n, want := range map[int64]int{
		-5: 0, 0: 0, 1: 1, 300: 300, maxRowsCapacity: maxRowsCapacity,
		maxRowsCapacity + 1: maxRowsCapacity, math.MaxInt64: maxRowsCapacity, math.MinInt64: 0,
	} {
		if got := rowsCapacity(n); got != want {
			t.Errorf("rowsCapacity(%d) = %d, want %d", n, got, want)
		}
	}
}

// TestReplayWithBadMessageCount replays and exports a session whose
// message_count, which both use to size their result, holds what bad data
// leaves (huge, negative, REAL, text, a BLOB, NULL, and fewer or more than
// the session's rows): every read returns the session's three messages,
// in order.
func TestReplayWithBadMessageCount(t *testing.T) {
	ctx := t.Context()
	s, _ := openStore(t, nil)
	mustCreate(t, s, NewSession{ID: "s", Source: "cli"})
	var want []string
	for i := range 3 {
		c := fmt.Sprintf("message %d", i)
		mustAppend(t, s, "s", NewMessage{Role: "user", Content: &c})
		want = append(want, c)
	}
	for _, count := range []string{"9223372036854775807", "-9223372036854775808", "-1", "0", "1",
		"1e300", "2.5", "'many'", "x'ff'", "NULL", "100000"} {
		execSQL(t, s, "UPDATE sessions SET message_count = "+count+" WHERE id = 's'")
		conv, err := s.Conversation(ctx, "s", false)
		if err != nil {
			t.Fatalf("message_count %s: Conversation: %v", count, err)
		}
		export, err := s.ExportSession(ctx, "s")
		if err != nil {
			t.Fatalf("message_count %s: ExportSession: %v", count, err)
		}
		if len(conv) != 3 || len(export.Messages) != 3 {
			t.Fatalf("message_count %s: replay %d, export %d messages, want 3", count, len(conv), len(export.Messages))
		}
		for i, c := range want {
			if *conv[i].Content != c || *export.Messages[i].Content != c {
				t.Errorf("message_count %s: message %d is %q / %q, want %q", count, i, *conv[i].Content, *export.Messages[i].Content, c)
			}
		}
		if cap(conv) > maxRowsCapacity {
			t.Errorf("message_count %s: replay made with capacity %d, above %d", count, cap(conv), maxRowsCapacity)
		}
	}
}
