package store

// Tests of Check on a sound file and on files damaged by hand through a
// raw connection, and of RebuildSearchIndex repairing a damaged index.

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// healthFixture opens a store with opts (nil: the defaults) holding two
// sessions: "a" with three messages, one making two tool calls (a list)
// and one making one (a dict), and "b" with a CJK message that only the
// trigram index finds.
func healthFixture(t *testing.T, opts *Options) (*Store, string) {
	t.Helper()
	o := Options{}
	if opts != nil {
		o = *opts
	}
	o.Now = fixtureClock()
	s, path := openStore(t, quick(&o))
	mustCreate(t, s, NewSession{ID: "a", Source: "cli"})
	mustAppend(t, s, "a", NewMessage{Role: "user", Content: new("hello apple")})
	mustAppend(t, s, "a", NewMessage{Role: "assistant", ToolCalls: json.RawMessage(`[{"id": "c1"}, {"id": "c2"}]`)})
	mustAppend(t, s, "a", NewMessage{Role: "assistant", Content: new("hello banana"), ToolCalls: json.RawMessage(`{"id": "c3"}`)})
	mustCreate(t, s, NewSession{ID: "b", Source: "cli"})
	mustAppend(t, s, "b", NewMessage{Role: "user", Content: new("日本語のテキスト hello")})
	return s, path
}

// soundHealth is what Check reports for s's file when it is sound.
func soundHealth(t testing.TB, s *Store) *Health {
	t.Helper()
	return &Health{
		SchemaVersion: 21,
		SQLiteVersion: dbtest.Value[string](t, s.r, "SELECT sqlite_version()"),
		FTS5:          true,
		Trigram:       true,
		Integrity:     []string{"ok"},
		FTS:           []FTSCheck{{"messages_fts", "", ""}, {"messages_fts_trigram", "", ""}},
		Counters:      []CounterMismatch{},
		BadValues:     []BadValue{},
		WALBytes:      max(dbtest.WALSize(t, s.Path()), 0),
	}
}

// mustCheck runs Check.
func mustCheck(t testing.TB, s *Store) *Health {
	t.Helper()
	h, err := s.Check(t.Context())
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	return h
}

// TestCheckSound checks the exact report on a sound file.
func TestCheckSound(t *testing.T) {
	t.Parallel()
	s, _ := healthFixture(t, nil)
	got := mustCheck(t, s)
	if diff := cmp.Diff(soundHealth(t, s), got); diff != "" {
		t.Errorf("Check (-want +got):\n%s", diff)
	}
	if got.WALBytes == 0 {
		t.Errorf("WALBytes = 0; the fixture's writes leave a -wal file")
	}
	if !regexp.MustCompile(`^3\.\d+\.\d+$`).MatchString(got.SQLiteVersion) {
		t.Errorf("SQLiteVersion = %q, want 3.x.y", got.SQLiteVersion)
	}
	if !got.OK() {
		t.Errorf("OK() = false for %+v", got)
	}
}

// TestCheckFindsDamage damages a sound file by hand, one way per subtest,
// and checks the exact report.
func TestCheckFindsDamage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		damage []string // statements run on a raw connection
		want   func(h *Health)
	}{
		{
			"MessagesMissingFromIndex",
			[]string{"DELETE FROM messages_fts WHERE rowid IN (1, 3)"},
			func(h *Health) { h.FTS[0].Problem = "2 messages missing from the index" },
		},
		{
			"IndexRowWithoutMessage",
			[]string{"INSERT INTO messages_fts_trigram(rowid, content) VALUES (999, 'ghost')"},
			func(h *Health) { h.FTS[1].Problem = "1 index rows without a message" },
		},
		{
			"OutdatedIndexText",
			[]string{"UPDATE messages_fts SET content = 'stale' WHERE rowid = 2"},
			func(h *Health) { h.FTS[0].Problem = "1 index rows with outdated text" },
		},
		{
			"SeveralProblemsInOneIndex",
			[]string{
				"DELETE FROM messages_fts_trigram WHERE rowid = 4",
				"INSERT INTO messages_fts_trigram(rowid, content) VALUES (998, 'ghost'), (999, 'ghost')",
			},
			func(h *Health) {
				h.FTS[1].Problem = "1 messages missing from the index; 2 index rows without a message"
			},
		},
		{
			"CountersOff",
			[]string{
				"UPDATE sessions SET message_count = 7, tool_call_count = 0 WHERE id = 'a'",
				"UPDATE sessions SET message_count = NULL WHERE id = 'b'",
			},
			func(h *Health) {
				h.Counters = []CounterMismatch{
					{"a", "message_count", 7, 3},
					{"a", "tool_call_count", 0, 3},
					{"b", "message_count", 0, 1},
				}
			},
		},
		{
			"OrphanMessages",
			[]string{
				// Why: the schema's foreign key refuses a message of no
				// session; an old or foreign writer may have had it off.
				"PRAGMA foreign_keys = OFF",
				"INSERT INTO messages (session_id, role, content, timestamp) VALUES ('gone', 'user', 'boo', 1), ('gone', 'user', 'boo', 2)",
			},
			func(h *Health) { h.OrphanMessages = 2 },
		},
		{
			"BadValues",
			[]string{
				"UPDATE sessions SET input_tokens = 9223372036854775807 + 1, started_at = 'soon' WHERE id = 'a'",
				"UPDATE sessions SET ended_at = x'00', api_call_count = 2.5 WHERE id = 'b'",
				"UPDATE messages SET token_count = 'many', timestamp = x'01' WHERE id = 2",
			},
			func(h *Health) {
				h.BadValues = []BadValue{
					{"sessions", "a", "started_at", "text"},
					{"sessions", "a", "input_tokens", "real"},
					{"sessions", "b", "ended_at", "blob"},
					{"sessions", "b", "api_call_count", "real"},
					{"messages", "2", "timestamp", "blob"},
					{"messages", "2", "token_count", "text"},
				}
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, path := healthFixture(t, nil)
			dbtest.Exec(t, rawDB(t, path), tc.damage...)
			got := mustCheck(t, s)
			want := soundHealth(t, s)
			tc.want(want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
			if got.OK() {
				t.Errorf("OK() = true for a damaged file")
			}
		})
	}
}

// ftsBlobCorruption is the report of FTS5's check on messages_fts once its
// segment blocks are gone; the blob's id depends on the segment layout.
var ftsBlobCorruption = regexp.MustCompile(`^fts5: corruption found reading blob \d+ from table "messages_fts"$`)

// damageSearchIndex deletes the segment blocks of messages_fts: the rows
// of its shadow table messages_fts_data with id > 10 (id 1 is the
// averages record, id 10 the structure record, the rest are segment
// pages).
func damageSearchIndex(t testing.TB, path string) {
	t.Helper()
	raw := rawDB(t, path)
	if n := dbtest.Value[int64](t, raw, "SELECT COUNT(*) FROM messages_fts_data WHERE id > 10"); n == 0 {
		t.Fatal("messages_fts has no segment block to damage")
	}
	dbtest.Exec(t, raw, "DELETE FROM messages_fts_data WHERE id > 10")
}

// TestDamagedSearchIndex damages messages_fts: search on that index fails
// with ErrCorrupt instead of finding nothing, reading, listing and
// exporting keep working, the trigram index keeps searching, Check names
// the damage, and RebuildSearchIndex repairs it.
func TestDamagedSearchIndex(t *testing.T) {
	t.Parallel()
	s, path := healthFixture(t, nil)
	for i := range 12 {
		mustAppend(t, s, "a", NewMessage{Role: "user", Content: new(fmt.Sprintf("filler %d hello", i))})
	}
	want := exportText(t, s, ExportOptions{})
	damageSearchIndex(t, path)

	hits, err := s.SearchMessages(t.Context(), "hello", SearchOptions{})
	if !errors.Is(err, ErrCorrupt) || hits != nil {
		t.Errorf("SearchMessages on the damaged index = %d hits, %v; want nil, ErrCorrupt", len(hits), err)
	}
	if diff := cmp.Diff([]int64{4}, searchIDs(t, s, "日本語")); diff != "" {
		t.Errorf("search of the sound trigram index (-want +got):\n%s", diff)
	}
	if msgs, err := s.GetMessages(t.Context(), "a"); err != nil || len(msgs) != 15 {
		t.Errorf("GetMessages(a) = %d messages, %v; want 15, nil", len(msgs), err)
	}
	if list, err := s.ListSessionsRich(t.Context(), ListOptions{}); err != nil || len(list) != 2 {
		t.Errorf("ListSessionsRich = %d sessions, %v; want 2, nil", len(list), err)
	}
	if diff := cmp.Diff(want, exportText(t, s, ExportOptions{})); diff != "" {
		t.Errorf("export changed (-before +after):\n%s", diff)
	}

	h := mustCheck(t, s)
	if len(h.Integrity) != 1 || !ftsBlobCorruption.MatchString(h.Integrity[0]) {
		t.Errorf("Integrity = %q, want one line matching %s", h.Integrity, ftsBlobCorruption)
	}
	if len(h.FTS) != 2 || !ftsBlobCorruption.MatchString(h.FTS[0].Problem) || h.FTS[1] != (FTSCheck{"messages_fts_trigram", "", ""}) {
		t.Errorf("FTS = %+v, want messages_fts's problem matching %s and messages_fts_trigram sound", h.FTS, ftsBlobCorruption)
	}
	if h.OK() {
		t.Errorf("OK() = true for a damaged index")
	}

	// This append's commit merges no damaged segment, so it succeeds and
	// is indexed in a new segment; search still fails on the old ones.
	mustAppend(t, s, "b", NewMessage{Role: "user", Content: new("appended to a damaged index")})
	if _, err := s.SearchMessages(t.Context(), "appended", SearchOptions{}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("SearchMessages after the append: error = %v, want ErrCorrupt", err)
	}

	if err := s.RebuildSearchIndex(t.Context()); err != nil {
		t.Fatalf("RebuildSearchIndex: %v", err)
	}
	if diff := cmp.Diff(soundHealth(t, s), mustCheck(t, s)); diff != "" {
		t.Errorf("Check after the rebuild (-want +got):\n%s", diff)
	}
	wantHits := []int64{1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	if diff := cmp.Diff(wantHits, slices.Sorted(slices.Values(searchIDs(t, s, "hello")))); diff != "" {
		t.Errorf("search after the rebuild (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int64{17}, searchIDs(t, s, "appended")); diff != "" {
		t.Errorf("search for the message appended to the damaged index (-want +got):\n%s", diff)
	}
}

// TestAppendToDamagedSearchIndex shows that a damaged index can block
// writes too: when an append's commit makes FTS5 merge segments (here the
// 31st small segment of a session written one message per transaction),
// the merge reads the missing blocks and the append fails with ErrCorrupt,
// writing nothing. RebuildSearchIndex makes appending work again. (The
// ErrCorrupt doc comment says only search fails on a damaged index.)
func TestAppendToDamagedSearchIndex(t *testing.T) {
	t.Parallel()
	s, path := openStore(t, quick(&Options{Now: fixtureClock()}))
	mustCreate(t, s, NewSession{ID: "a", Source: "cli"})
	for i := range 30 {
		mustAppend(t, s, "a", NewMessage{Role: "user", Content: new(fmt.Sprintf("hello world number %d", i)),
			ToolCalls: json.RawMessage(`{"id": "x"}`)})
	}
	damageSearchIndex(t, path)
	_, err := s.AppendMessage(t.Context(), "a", NewMessage{Role: "user", Content: new("after the damage")})
	if !errors.Is(err, ErrCorrupt) {
		t.Errorf("AppendMessage: error = %v, want ErrCorrupt", err)
	}
	if got := rowCounts(t, s); got != [2]int64{1, 30} {
		t.Errorf("sessions, messages after the failed append = %v, want [1 30]", got)
	}
	if got := mustSession(t, s, "a"); got.MessageCount != 30 || got.ToolCallCount != 30 {
		t.Errorf("counters after the failed append = %d, %d; want 30, 30", got.MessageCount, got.ToolCallCount)
	}
	if err := s.RebuildSearchIndex(t.Context()); err != nil {
		t.Fatalf("RebuildSearchIndex: %v", err)
	}
	id := mustAppend(t, s, "a", NewMessage{Role: "user", Content: new("after the rebuild")})
	if diff := cmp.Diff([]int64{id}, searchIDs(t, s, "rebuild")); diff != "" {
		t.Errorf("search for the message appended after the rebuild (-want +got):\n%s", diff)
	}
}

// TestCheckAfterWrites runs Check, writes, and runs Check again on the
// same pooled read connection (ReadConnections 1), the way a dashboard
// checks a file Hermes keeps writing: the file stays sound, so both checks
// must say so, whoever wrote.
func TestCheckAfterWrites(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		write func(t *testing.T, s *Store, path string)
	}{
		{"ThisStoreAppends", func(t *testing.T, s *Store, _ string) {
			mustAppend(t, s, "a", NewMessage{Role: "user", Content: new("one more")})
		}},
		{"AnotherStoreAppends", func(t *testing.T, _ *Store, path string) {
			mustAppend(t, openAt(t, path, quick(nil)), "b", NewMessage{Role: "user", Content: new("from elsewhere")})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, path := healthFixture(t, &Options{ReadConnections: 1})
			searchIDs(t, s, "hello")
			searchIDs(t, s, "日本語")
			if diff := cmp.Diff(soundHealth(t, s), mustCheck(t, s)); diff != "" {
				t.Errorf("first Check (-want +got):\n%s", diff)
			}
			tc.write(t, s, path)
			if diff := cmp.Diff(soundHealth(t, s), mustCheck(t, s)); diff != "" {
				t.Errorf("Check after the write (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRebuildSearchIndexSound checks that a rebuild of a sound index
// changes no search result.
func TestRebuildSearchIndexSound(t *testing.T) {
	t.Parallel()
	s, _ := healthFixture(t, nil)
	before := [][]int64{searchIDs(t, s, "hello"), searchIDs(t, s, "日本語"), searchIDs(t, s, "c3")}
	if err := s.RebuildSearchIndex(t.Context()); err != nil {
		t.Fatal(err)
	}
	after := [][]int64{searchIDs(t, s, "hello"), searchIDs(t, s, "日本語"), searchIDs(t, s, "c3")}
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("search results changed by the rebuild (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(soundHealth(t, s), mustCheck(t, s)); diff != "" {
		t.Errorf("Check after the rebuild (-want +got):\n%s", diff)
	}
}

// TestHealthProblems: Problems lists every finding once, with its kind and
// the line doctor prints, in a fixed order; OK is true exactly when there
// is none.
func TestHealthProblems(t *testing.T) {
	t.Parallel()
	h := &Health{
		SchemaVersion:  9,
		Integrity:      []string{"row 3 missing from index idx_messages_session", "wrong # of entries"},
		FTS:            []FTSCheck{{"messages_fts", "2 messages missing from the index", ""}, {"messages_fts_trigram", "", ""}},
		Counters:       []CounterMismatch{{"s1", "message_count", 9, 1}},
		OrphanMessages: 1,
		BadValues: []BadValue{
			{"sessions", "s1", "input_tokens", "real"},
			{"sessions", "s1", "started_at", "text"},
			{"messages", "42", "token_count", "blob"},
			{"messages", "43", "timestamp", "integer"},
		},
		BadValuesTruncated: true,
	}
	want := []Problem{
		{ProblemIntegrity, "integrity_check: row 3 missing from index idx_messages_session; wrong # of entries"},
		{ProblemSearchIndex, "messages_fts: 2 messages missing from the index"},
		{ProblemCounter, "session s1: message_count is 9, its rows say 1"},
		{ProblemOrphanMessages, "1 message without a session"},
		{ProblemBadValue, "session s1: input_tokens is a REAL in an INTEGER column"},
		{ProblemBadValue, "session s1: started_at is TEXT in a REAL column"},
		{ProblemBadValue, "message 42: token_count is a BLOB in an INTEGER column"},
		{ProblemBadValue, "message 43: timestamp is an INTEGER in a REAL column"},
		{ProblemBadValue, "more rows hold values of another storage class (100 of each table listed)"},
		{ProblemSchema, "schema version 9 is older than this build's 21: run migrate up"},
	}
	if diff := cmp.Diff(want, h.Problems()); diff != "" {
		t.Errorf("Problems (-want +got):\n%s", diff)
	}
	if h.OK() {
		t.Error("OK() = true with problems")
	}
	h = &Health{SchemaVersion: 22, Integrity: []string{"ok"}, OrphanMessages: 3}
	want = []Problem{
		{ProblemOrphanMessages, "3 messages without a session"},
		{ProblemSchema, "schema version 22 is newer than this build's 21: written by a later Hermes"},
	}
	if diff := cmp.Diff(want, h.Problems()); diff != "" {
		t.Errorf("Problems (-want +got):\n%s", diff)
	}
	sound := &Health{SchemaVersion: 21, Integrity: []string{"ok"}}
	if got := sound.Problems(); len(got) != 0 || got == nil || !sound.OK() {
		t.Errorf("a sound Health: Problems() = %#v, OK() = %v; want [], true", got, sound.OK())
	}
}

// TestCheckListsAtMost100BadRows: with 101 sessions and 101 messages
// holding a bad value, Check lists the first 100 of each table by id and
// says there are more.
func TestCheckListsAtMost100BadRows(t *testing.T) {
	t.Parallel()
	s, path := openStore(t, quick(nil))
	raw := rawDB(t, path)
	dbtest.Exec(t, raw,
		// Why: 101 sessions with a message each, their counters REALs,
		// written in one statement each.
		`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 101)
		 INSERT INTO sessions (id, source, started_at, message_count) SELECT printf('s%03d', i), 'cli', i, 1.5 FROM n`,
		`INSERT INTO messages (session_id, role, content, timestamp, token_count) SELECT id, 'user', 'x', 1, 'many' FROM sessions`)
	h := mustCheck(t, s)
	if len(h.BadValues) != 200 || !h.BadValuesTruncated {
		t.Fatalf("Check: %d bad values, truncated %v; want 200, true", len(h.BadValues), h.BadValuesTruncated)
	}
	first, last := h.BadValues[0], h.BadValues[199]
	if first != (BadValue{"sessions", "s001", "message_count", "real"}) || h.BadValues[99] != (BadValue{"sessions", "s100", "message_count", "real"}) ||
		last != (BadValue{"messages", "100", "token_count", "text"}) {
		t.Errorf("Check: bad values from %+v to %+v (100th %+v)", first, last, h.BadValues[99])
	}
	problems := h.Problems()
	if got := problems[len(problems)-1]; got != (Problem{ProblemBadValue, "more rows hold values of another storage class (100 of each table listed)"}) {
		t.Errorf("last problem = %+v", got)
	}
}
