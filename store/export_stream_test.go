package store

// Tests of the one path that streams messages (EachMessage and the
// export): keyset pages over every value a timestamp can hold, and the
// export's one snapshot.

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// TestMessagePagesByID: a session of 1,600 messages written in scrambled
// id order, their timestamps runs of one -Inf, of one text and of one
// BLOB and numbers falling as the ids rise, every third one rewound.
// EachMessage, ExportJSONL and ExportAll return every live message once,
// in GetMessages's order: by id, whatever the timestamps (upstream's
// get_messages orders by id), across pages of 500.
func TestMessagePagesByID(t *testing.T) {
	t.Parallel()
	s, path := openStore(t, quick(nil))
	mustCreate(t, s, NewSession{ID: "s", Source: "cli"})
	// Why: 1,600 rows with explicit, scrambled ids (7919 is prime to
	// 1600, so i*7919 % 1600 visits every residue once).
	dbtest.Exec(t, rawDB(t, path), `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1600)
		INSERT INTO messages (id, session_id, role, content, timestamp, active)
		SELECT (i * 7919) % 1600 + 1, 's', 'user', 'm' || ((i * 7919) % 1600 + 1),
			CASE WHEN i <= 400 THEN -1e999 WHEN i <= 800 THEN 'soon' WHEN i <= 1200 THEN x'00ff' ELSE 5000 - i END,
			((i * 7919) % 1600 + 1) % 3 != 0
		FROM n`)
	var want []int64
	for id := int64(1); id <= 1600; id++ {
		if id%3 != 0 {
			want = append(want, id)
		}
	}
	ids := func(msgs []Message) []int64 {
		out := make([]int64, len(msgs))
		for i, m := range msgs {
			out[i] = m.ID
		}
		return out
	}
	if diff := cmp.Diff(want, ids(mustMessages(t, s, "s"))); diff != "" {
		t.Fatalf("GetMessages order (-want +got):\n%s", diff)
	}
	var each []Message
	if err := s.EachMessage(t.Context(), "s", func(m Message) error {
		each = append(each, m)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, ids(each)); diff != "" {
		t.Errorf("EachMessage (-want +got):\n%s", diff)
	}
	var line SessionExport
	if err := json.Unmarshal([]byte(exportText(t, s, ExportOptions{})), &line); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, ids(line.Messages)); diff != "" {
		t.Errorf("ExportJSONL (-want +got):\n%s", diff)
	}
	all, err := s.ExportAll(t.Context(), "")
	if err != nil || len(all) != 1 {
		t.Fatalf("ExportAll: %d sessions, %v", len(all), err)
	}
	if diff := cmp.Diff(want, ids(all[0].Messages)); diff != "" {
		t.Errorf("ExportAll (-want +got):\n%s", diff)
	}
	for i, m := range all[0].Messages {
		if want := fmt.Sprintf("m%d", m.ID); deref(m.Content) != want {
			t.Fatalf("message %d: content %q, want %q", i, deref(m.Content), want)
		}
	}
}

// TestExportOneSnapshot writes to the database while ExportJSONL runs,
// after its first line (from its Progress call): a message appended to a
// session already written, one to the session of 1,200 messages still to
// come (three pages), a new session, a session deleted. The export is the
// one taken before the writes, byte for byte; the next export sees them.
func TestExportOneSnapshot(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, quick(&Options{Now: fixtureClock()}))
	mustCreate(t, s, NewSession{ID: "big", Source: "cli"})
	for i := range 1200 {
		mustAppend(t, s, "big", NewMessage{Role: "user", Content: new(fmt.Sprintf("message %d", i))})
	}
	for _, id := range []string{"gone", "first"} {
		mustCreate(t, s, NewSession{ID: id, Source: "cli"})
		mustAppend(t, s, id, NewMessage{Role: "user", Content: new("hello " + id)})
	}
	before := exportText(t, s, ExportOptions{})
	if !strings.HasPrefix(before, `{"id":"first",`) || strings.Count(before, "\n") != 3 {
		t.Fatalf("the export does not start with the newest session, first:\n%.200s", before)
	}
	written := false
	var buf strings.Builder
	n, err := s.ExportJSONL(t.Context(), &buf, ExportOptions{Progress: func(n int) {
		if n != 1 {
			return
		}
		written = true
		mustAppend(t, s, "first", NewMessage{Role: "assistant", Content: new("late")})
		mustAppend(t, s, "big", NewMessage{Role: "assistant", Content: new("late")})
		mustCreate(t, s, NewSession{ID: "new", Source: "cli"})
		if err := s.DeleteSession(t.Context(), "gone", ""); err != nil {
			t.Error(err)
		}
	}})
	if err != nil || n != 3 || !written {
		t.Fatalf("ExportJSONL = %d, %v (wrote meanwhile: %v); want 3 sessions", n, err, written)
	}
	if diff := cmp.Diff(before, buf.String()); diff != "" {
		t.Errorf("the export saw the writes made while it ran (-before +export):\n%s", diff)
	}
	after := exportText(t, s, ExportOptions{})
	if strings.Count(after, "\n") != 3 || !strings.Contains(after, `"id":"new"`) || strings.Contains(after, `"id":"gone"`) || strings.Count(after, `"late"`) != 2 {
		t.Errorf("the next export does not see the writes:\n%.300s", after)
	}
}
