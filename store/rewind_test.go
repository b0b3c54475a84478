package store

// Rewind, restore, in-place compaction and the live-row replacement, each
// scenario run against upstream c2a3b9ce5 first (time.time patched to the
// same clock) and every expected value below what it gave.

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// rowState is a message's id, active and compacted flags.
type rowState struct{ ID, Active, Compacted int64 }

// rowStates returns every message row of session id, in id order.
func rowStates(t *testing.T, s *Store, id string) []rowState {
	t.Helper()
	msgs, err := s.GetMessagesWith(t.Context(), id, MessageOptions{IncludeInactive: true})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]rowState, len(msgs))
	for i, m := range msgs {
		out[i] = rowState{m.ID, m.Active, m.Compacted}
	}
	return out
}

// counters returns a session's message_count, tool_call_count and
// rewind_count.
func counters(t *testing.T, s *Store, id string) [3]int64 {
	t.Helper()
	sess := mustSession(t, s, id)
	return [3]int64{sess.MessageCount, sess.ToolCallCount, sess.RewindCount}
}

// TestRewindRestoreCompact walks one session through upstream's rewind,
// restore, compaction and live-row replacement: which rows each step
// flips, what it returns, and the counters (a rewind leaves message_count
// as it is; a compaction and a live replacement set it to the new live
// set; a restore touches no counter).
func TestRewindRestoreCompact(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, _ := openStore(t, &Options{Now: stepClock(time.Unix(1001, 0), time.Second)})
	mustCreate(t, s, NewSession{ID: "s", Source: "cli"})
	var ids []int64
	for _, m := range [][2]string{{"user", "q1"}, {"assistant", "a1"}, {"user", "q2"}, {"assistant", "a2"}, {"user", "q3"}} {
		ids = append(ids, mustAppend(t, s, "s", NewMessage{Role: m[0], Content: new(m[1])}))
	}
	if !cmp.Equal(ids, []int64{1, 2, 3, 4, 5}) {
		t.Fatalf("ids = %v", ids)
	}
	before := dbtest.Rows(t, s.w, "SELECT * FROM messages ORDER BY id")

	// Refused targets: nothing written, rewind_count untouched.
	for _, tc := range []struct {
		session string
		target  int64
		want    error
		text    string
	}{
		{"s", 2, ErrNotUserMessage, `store: rewind "s": rewind target is not a user message: message 2 is a "assistant" message`},
		{"s", 999, ErrMessageNotFound, `store: rewind "s": message 999: no such message in the session`},
		{"other", 1, ErrMessageNotFound, `store: rewind "other": message 1: no such message in the session`},
	} {
		_, err := s.RewindToMessage(ctx, tc.session, tc.target)
		if !errors.Is(err, tc.want) || err.Error() != tc.text {
			t.Errorf("RewindToMessage(%s, %d) = %v, want %q", tc.session, tc.target, err, tc.text)
		}
	}
	if !errors.Is(ErrMessageNotFound, ErrNotFound) {
		t.Error("ErrMessageNotFound does not match ErrNotFound")
	}
	if diff := cmp.Diff(before, dbtest.Rows(t, s.w, "SELECT * FROM messages ORDER BY id")); diff != "" {
		t.Errorf("a refused rewind changed rows (-before +after):\n%s", diff)
	}
	if c := counters(t, s, "s"); c != [3]int64{5, 0, 0} {
		t.Errorf("counters after refused rewinds = %v, want [5 0 0]", c)
	}

	rewind := func(target int64) RewindResult {
		t.Helper()
		r, err := s.RewindToMessage(ctx, "s", target)
		if err != nil {
			t.Fatalf("RewindToMessage(%d): %v", target, err)
		}
		return r
	}
	// Rewinding to q2 takes back q2, a2, q3; the target is returned as it
	// was (still live), its content decoded.
	r := rewind(3)
	if r.Rewound != 3 || deref(r.NewHead) != 2 || r.Target.ID != 3 || deref(r.Target.Content) != "q2" || r.Target.Active != 1 ||
		r.Target.Timestamp != 1004 || deref(r.Target.Observed) != 0 {
		t.Errorf("rewind to 3 = %+v (head %v)", r, r.NewHead)
	}
	if c := counters(t, s, "s"); c != [3]int64{5, 0, 1} {
		t.Errorf("counters after a rewind = %v, want [5 0 1]: message_count unchanged", c)
	}
	// Again: nothing new to take back, the count still goes up; the
	// target now reads inactive.
	if r := rewind(3); r.Rewound != 0 || deref(r.NewHead) != 2 || r.Target.Active != 0 {
		t.Errorf("second rewind to 3 = %+v", r)
	}
	// To the first message: none left live.
	if r := rewind(1); r.Rewound != 2 || r.NewHead != nil || r.Target.ID != 1 {
		t.Errorf("rewind to 1 = %+v (head %v), want 2 rewound, no head", r, r.NewHead)
	}
	if c := counters(t, s, "s"); c != [3]int64{5, 0, 3} {
		t.Errorf("counters = %v, want [5 0 3]", c)
	}
	if ok, err := s.HasArchivedMessages(ctx, "s"); err != nil || !ok {
		t.Errorf("HasArchivedMessages = %v, %v; want true", ok, err)
	}
	if n := len(mustMessages(t, s, "s")); n != 0 {
		t.Errorf("GetMessages after rewinding everything: %d messages, want 0", n)
	}

	// Restore from 2 on: 4 rows live again; 1 stays rewound.
	if n, err := s.RestoreRewound(ctx, "s", 2); err != nil || n != 4 {
		t.Errorf("RestoreRewound(2) = %d, %v; want 4", n, err)
	}
	if diff := cmp.Diff([]rowState{{1, 0, 0}, {2, 1, 0}, {3, 1, 0}, {4, 1, 0}, {5, 1, 0}}, rowStates(t, s, "s")); diff != "" {
		t.Errorf("rows after restore (-want +got):\n%s", diff)
	}

	// Compact in place: the 4 live rows are summarised away, 2 new ones
	// (stamped now, then 1µs later) are the live set and the counters.
	n, err := s.ArchiveAndCompact(ctx, "s", []NewMessage{
		{Role: "user", Content: new("summary")},
		{Role: "assistant", Content: new("ok"), ToolCalls: json.RawMessage(`[{"id": "x"}]`), Reasoning: new("r")},
	})
	if err != nil || n != 2 {
		t.Fatalf("ArchiveAndCompact = %d, %v; want 2", n, err)
	}
	if c := counters(t, s, "s"); c != [3]int64{2, 1, 3} {
		t.Errorf("counters after compaction = %v, want [2 1 3]", c)
	}
	if diff := cmp.Diff([]rowState{{1, 0, 0}, {2, 0, 1}, {3, 0, 1}, {4, 0, 1}, {5, 0, 1}, {6, 1, 0}, {7, 1, 0}}, rowStates(t, s, "s")); diff != "" {
		t.Errorf("rows after compaction (-want +got):\n%s", diff)
	}
	live := mustMessages(t, s, "s")
	if got := []Timestamp{live[0].Timestamp, live[1].Timestamp}; !cmp.Equal(got, []Timestamp{1007, 1007.000001}) || deref(live[1].Reasoning) != "r" {
		t.Errorf("compacted rows: timestamps %v, reasoning %v; want [1007 1007.000001], r", got, live[1].Reasoning)
	}

	// A restore also brings back compaction-archived rows (compacted
	// stays 1), as upstream's restore_rewound does.
	if n, err := s.RestoreRewound(ctx, "s", 4); err != nil || n != 2 {
		t.Errorf("RestoreRewound(4) = %d, %v; want 2", n, err)
	}
	if diff := cmp.Diff([]rowState{{1, 0, 0}, {2, 0, 1}, {3, 0, 1}, {4, 1, 1}, {5, 1, 1}, {6, 1, 0}, {7, 1, 0}}, rowStates(t, s, "s")); diff != "" {
		t.Errorf("rows after the second restore (-want +got):\n%s", diff)
	}
	if c := counters(t, s, "s"); c != [3]int64{2, 1, 3} {
		t.Errorf("counters after restore = %v, want [2 1 3] (untouched)", c)
	}

	// Replacing the live rows keeps the inactive ones.
	if err := s.ReplaceActiveMessages(ctx, "s", []NewMessage{{Role: "user", Content: new("new")}}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]rowState{{1, 0, 0}, {2, 0, 1}, {3, 0, 1}, {8, 1, 0}}, rowStates(t, s, "s")); diff != "" {
		t.Errorf("rows after ReplaceActiveMessages (-want +got):\n%s", diff)
	}
	if c := counters(t, s, "s"); c != [3]int64{1, 0, 3} {
		t.Errorf("counters after ReplaceActiveMessages = %v, want [1 0 3]", c)
	}
	// Every row is still counted by MessageCount; a full replace deletes
	// them all.
	if n, err := s.MessageCount(ctx, "s"); err != nil || n != 4 {
		t.Errorf("MessageCount = %d, %v; want 4", n, err)
	}
	if err := s.ReplaceMessages(ctx, "s", []NewMessage{{Role: "user", Content: new("only")}}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]rowState{{9, 1, 0}}, rowStates(t, s, "s")); diff != "" {
		t.Errorf("rows after ReplaceMessages (-want +got):\n%s", diff)
	}
	if ok, err := s.HasArchivedMessages(ctx, "s"); err != nil || ok {
		t.Errorf("HasArchivedMessages = %v, %v; want false", ok, err)
	}
}

// TestRestoreAndCompactOfUnknownSessions: restoring an unknown session
// restores nothing (upstream returns 0); compacting or replacing one is
// ErrSessionNotFound with nothing written.
func TestRestoreAndCompactOfUnknownSessions(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, _ := openStore(t, quick(nil))
	if n, err := s.RestoreRewound(ctx, "nope", 1); n != 0 || err != nil {
		t.Errorf("RestoreRewound(nope) = %d, %v; want 0, nil", n, err)
	}
	n, err := s.ArchiveAndCompact(ctx, "nope", []NewMessage{{Role: "user", Content: new("x")}})
	if n != 0 || !errors.Is(err, ErrSessionNotFound) || err.Error() != `store: compact "nope": no such session` {
		t.Errorf("ArchiveAndCompact(nope) = %d, %v", n, err)
	}
	if err := s.ReplaceActiveMessages(ctx, "nope", nil); !errors.Is(err, ErrSessionNotFound) {
		t.Errorf("ReplaceActiveMessages(nope) = %v, want ErrSessionNotFound", err)
	}
	if c := rowCounts(t, s); c != [2]int64{0, 0} {
		t.Errorf("rows = %v, want none", c)
	}
}

// TestCompactionIsOneTransaction: a compaction whose second new message is
// refused leaves the session exactly as it was: the live rows not
// archived, no row inserted, the counters unchanged.
func TestCompactionIsOneTransaction(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, quick(nil))
	mustCreate(t, s, NewSession{ID: "s", Source: "cli"})
	mustAppend(t, s, "s", NewMessage{Role: "user", Content: new("q")})
	mustAppend(t, s, "s", NewMessage{Role: "assistant", Content: new("a"), ToolCalls: json.RawMessage(`[{"id": 1}]`)})
	const rowsSQL = "SELECT * FROM messages ORDER BY id"
	const countsSQL = "SELECT message_count, tool_call_count FROM sessions"
	rows, counts := dbtest.Rows(t, s.w, rowsSQL), dbtest.Rows(t, s.w, countsSQL)
	_, err := s.ArchiveAndCompact(t.Context(), "s", []NewMessage{
		{Role: "user", Content: new("summary")},
		{Role: "assistant", ToolCalls: json.RawMessage(`{broken`)},
	})
	if !errors.Is(err, ErrInvalidJSON) || !strings.HasPrefix(err.Error(), `store: compact "s": message 2: tool calls: invalid JSON`) {
		t.Fatalf("ArchiveAndCompact = %v, want ErrInvalidJSON naming message 2", err)
	}
	if diff := cmp.Diff(rows, dbtest.Rows(t, s.w, rowsSQL)); diff != "" {
		t.Errorf("rows changed (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(counts, dbtest.Rows(t, s.w, countsSQL)); diff != "" {
		t.Errorf("counters changed (-before +after):\n%s", diff)
	}
}

// TestListRecentUserMessages: the previews of upstream's /rewind picker,
// newest first: white space collapsed (Python's, Unicode included), cut
// at 77 code points and "..." past 80, the text parts of structured
// content or "[multimodal content]", "" for a dict or no content; live
// messages only unless asked; the limit.
func TestListRecentUserMessages(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, _ := openStore(t, &Options{Now: stepClock(time.Unix(1001, 0), time.Second)})
	mustCreate(t, s, NewSession{ID: "p", Source: "cli"})
	for _, m := range []NewMessage{
		{Content: new("  a\n\tb  c ")},
		{Content: new(strings.Repeat("x", 81))},
		{Content: new(strings.Repeat("y", 80))},
		{Content: new(strings.Repeat("é", 90))},
		{ContentJSON: json.RawMessage(`[{"type":"text","text":"hi "},{"type":"image_url"},{"type":"text","text":""},{"type":"text","text":" there"}]`)},
		{ContentJSON: json.RawMessage(`[{"type":"image_url"}]`)},
		{ContentJSON: json.RawMessage(`{"a":1}`)},
		{},
		{Content: new("\u3000lead\u00a0mid\u2028end")},
	} {
		m.Role = "user"
		mustAppend(t, s, "p", m)
	}
	mustAppend(t, s, "p", NewMessage{Role: "assistant", Content: new("not listed")})
	list := func(opts RecentUserMessagesOptions) []UserMessagePreview {
		t.Helper()
		got, err := s.ListRecentUserMessages(ctx, "p", opts)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	want := []string{"lead mid end", "", "", "[multimodal content]", "hi there", strings.Repeat("é", 77) + "...",
		strings.Repeat("y", 80), strings.Repeat("x", 77) + "...", "a b c"}
	got := list(RecentUserMessagesOptions{})
	var previews []string
	for _, p := range got {
		previews = append(previews, p.Preview)
	}
	if diff := cmp.Diff(want, previews); diff != "" {
		t.Errorf("previews (-want +got):\n%s", diff)
	}
	if got[0] != (UserMessagePreview{ID: 9, Timestamp: 1010, Preview: "lead mid end"}) {
		t.Errorf("newest = %+v", got[0])
	}
	if diff := cmp.Diff(`[{"id":9,"timestamp":1010.0,"preview":"lead mid end"}]`, string(mustJSON(t, got[:1]))); diff != "" {
		t.Errorf("JSON (-want +got):\n%s", diff)
	}
	if n := len(list(RecentUserMessagesOptions{Limit: 2})); n != 2 {
		t.Errorf("Limit 2: %d entries", n)
	}
	if _, err := s.RewindToMessage(ctx, "p", 8); err != nil {
		t.Fatal(err)
	}
	if n := len(list(RecentUserMessagesOptions{})); n != 7 {
		t.Errorf("after rewinding to 8: %d live user messages, want 7", n)
	}
	if n := len(list(RecentUserMessagesOptions{IncludeInactive: true, Limit: -1})); n != 9 {
		t.Errorf("IncludeInactive, no limit: %d, want 9", n)
	}
	mustCreate(t, s, NewSession{ID: "many", Source: "cli"})
	for range 25 {
		mustAppend(t, s, "many", NewMessage{Role: "user", Content: new("m")})
	}
	if n := len(mustRecent(t, s, "many")); n != 20 {
		t.Errorf("default limit: %d entries, want upstream's 20", n)
	}
}

// mustRecent is ListRecentUserMessages with the defaults.
func mustRecent(t *testing.T, s *Store, id string) []UserMessagePreview {
	t.Helper()
	got, err := s.ListRecentUserMessages(t.Context(), id, RecentUserMessagesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestHasPlatformMessageID: a platform id is found in its session only,
// whatever the row's active state.
func TestHasPlatformMessageID(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, _ := openStore(t, quick(nil))
	mustCreate(t, s, NewSession{ID: "a", Source: "telegram"})
	mustCreate(t, s, NewSession{ID: "b", Source: "telegram"})
	id := mustAppend(t, s, "a", NewMessage{Role: "user", Content: new("hi"), PlatformMessageID: "9001"})
	if _, err := s.RewindToMessage(ctx, "a", id); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		session, platformID string
		want                bool
	}{{"a", "9001", true}, {"b", "9001", false}, {"a", "9002", false}, {"a", "", false}} {
		if got, err := s.HasPlatformMessageID(ctx, tc.session, tc.platformID); err != nil || got != tc.want {
			t.Errorf("HasPlatformMessageID(%q, %q) = %v, %v; want %v", tc.session, tc.platformID, got, err, tc.want)
		}
	}
}
