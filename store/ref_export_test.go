package store

// Ports of reference-tests.md A.5 (TestSearchSessions), A.6 (TestCounts),
// A.7 (TestDeleteAndExport), A.8 (TestPruneSessions) and A.9
// (TestDeleteSessionOrphansChildren), plus TestExportJSONL.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestSearchSessions(t *testing.T) {
	t.Parallel()

	t.Run("ListAllSessions", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		mustCreate(t, s, NewSession{ID: "s1", Source: "cli"})
		mustCreate(t, s, NewSession{ID: "s2", Source: "telegram"})
		got, err := s.SearchSessions(t.Context(), "", 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 {
			t.Errorf("len(search_sessions()) = %d, want 2", len(got))
		}
	})

	t.Run("FilterBySource", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		mustCreate(t, s, NewSession{ID: "s1", Source: "cli"})
		mustCreate(t, s, NewSession{ID: "s2", Source: "telegram"})
		got, err := s.SearchSessions(t.Context(), "cli", 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].Source != "cli" {
			t.Errorf("search_sessions(source=cli) = %+v, want one cli session", got)
		}
	})

	t.Run("Pagination", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		for i := range 5 {
			mustCreate(t, s, NewSession{ID: fmt.Sprintf("s%d", i), Source: "cli"})
		}
		page1, err := s.SearchSessions(t.Context(), "", 2, 0)
		if err != nil {
			t.Fatal(err)
		}
		page2, err := s.SearchSessions(t.Context(), "", 2, 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(page1) != 2 || len(page2) != 2 {
			t.Fatalf("page lengths = %d, %d; want 2, 2", len(page1), len(page2))
		}
		if page1[0].ID == page2[0].ID {
			t.Errorf("both pages start with %q", page1[0].ID)
		}
	})
}

func TestCounts(t *testing.T) {
	t.Parallel()

	sessionCount := func(t *testing.T, s *Store, source string) int64 {
		t.Helper()
		n, err := s.SessionCount(t.Context(), source)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	messageCount := func(t *testing.T, s *Store, id string) int64 {
		t.Helper()
		n, err := s.MessageCount(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}

	t.Run("SessionCount", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		if n := sessionCount(t, s, ""); n != 0 {
			t.Errorf("session_count() = %d on an empty store, want 0", n)
		}
		mustCreate(t, s, NewSession{ID: "s1", Source: "cli"})
		mustCreate(t, s, NewSession{ID: "s2", Source: "telegram"})
		if n := sessionCount(t, s, ""); n != 2 {
			t.Errorf("session_count() = %d, want 2", n)
		}
	})

	t.Run("SessionCountBySource", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		mustCreate(t, s, NewSession{ID: "s1", Source: "cli"})
		mustCreate(t, s, NewSession{ID: "s2", Source: "telegram"})
		mustCreate(t, s, NewSession{ID: "s3", Source: "cli"})
		if n := sessionCount(t, s, "cli"); n != 2 {
			t.Errorf("session_count(cli) = %d, want 2", n)
		}
		if n := sessionCount(t, s, "telegram"); n != 1 {
			t.Errorf("session_count(telegram) = %d, want 1", n)
		}
	})

	t.Run("MessageCountTotal", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		if n := messageCount(t, s, ""); n != 0 {
			t.Errorf("message_count() = %d on an empty store, want 0", n)
		}
		mustCreate(t, s, NewSession{ID: "s1", Source: "cli"})
		mustAppend(t, s, "s1", NewMessage{Role: "user", Content: new("Hello")})
		mustAppend(t, s, "s1", NewMessage{Role: "assistant", Content: new("Hi")})
		if n := messageCount(t, s, ""); n != 2 {
			t.Errorf("message_count() = %d, want 2", n)
		}
	})

	t.Run("MessageCountPerSession", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		mustCreate(t, s, NewSession{ID: "s1", Source: "cli"})
		mustCreate(t, s, NewSession{ID: "s2", Source: "cli"})
		mustAppend(t, s, "s1", NewMessage{Role: "user", Content: new("A")})
		mustAppend(t, s, "s2", NewMessage{Role: "user", Content: new("B")})
		mustAppend(t, s, "s2", NewMessage{Role: "user", Content: new("C")})
		if n := messageCount(t, s, "s1"); n != 1 {
			t.Errorf("message_count(s1) = %d, want 1", n)
		}
		if n := messageCount(t, s, "s2"); n != 2 {
			t.Errorf("message_count(s2) = %d, want 2", n)
		}
	})
}

// upstream: TestDeleteAndExport::test_resolve_session_id_exact,
// test_resolve_session_id_unique_prefix,
// test_resolve_session_id_ambiguous_prefix_returns_none,
// test_resolve_session_id_escapes_like_wildcards, test_export_session,
// test_export_nonexistent, test_export_all, test_export_all_with_source
// (unchanged at c2a3b9ce5; the deletion tests are the sessions port's)
func TestDeleteAndExport(t *testing.T) {
	t.Parallel()

	t.Run("DeleteSession", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		mustCreate(t, s, NewSession{ID: "s1", Source: "cli"})
		mustAppend(t, s, "s1", NewMessage{Role: "user", Content: new("Hello")})
		if err := s.DeleteSession(t.Context(), "s1", ""); err != nil {
			t.Fatalf("DeleteSession = %v, want nil (True)", err)
		}
		assertGone(t, s, "s1")
		if n, err := s.MessageCount(t.Context(), "s1"); err != nil || n != 0 {
			t.Errorf("message_count(s1) = %d, %v; want 0", n, err)
		}
	})

	t.Run("DeleteNonexistent", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		if err := s.DeleteSession(t.Context(), "nope", ""); !errors.Is(err, ErrSessionNotFound) {
			t.Errorf("DeleteSession(nope) = %v, want ErrSessionNotFound (False)", err)
		}
	})

	resolve := func(t *testing.T, s *Store, prefix, want string) {
		t.Helper()
		got, err := s.ResolveSessionID(t.Context(), prefix)
		if err != nil || got != want {
			t.Errorf("ResolveSessionID(%q) = %q, %v; want %q", prefix, got, err, want)
		}
	}

	t.Run("ResolveSessionIdExact", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		mustCreate(t, s, NewSession{ID: "20260315_092437_c9a6ff", Source: "cli"})
		resolve(t, s, "20260315_092437_c9a6ff", "20260315_092437_c9a6ff")
	})

	t.Run("ResolveSessionIdUniquePrefix", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		mustCreate(t, s, NewSession{ID: "20260315_092437_c9a6ff", Source: "cli"})
		resolve(t, s, "20260315_092437_c9a6", "20260315_092437_c9a6ff")
	})

	t.Run("ResolveSessionIdAmbiguousPrefixReturnsNone", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		mustCreate(t, s, NewSession{ID: "20260315_092437_c9a6aa", Source: "cli"})
		mustCreate(t, s, NewSession{ID: "20260315_092437_c9a6bb", Source: "cli"})
		got, err := s.ResolveSessionID(t.Context(), "20260315_092437_c9a6")
		if !errors.Is(err, ErrAmbiguous) || errors.Is(err, ErrNotFound) || got != "" {
			t.Errorf("ResolveSessionID = %q, %v; want \"\", ErrAmbiguous (None), not ErrNotFound", got, err)
		}
	})

	t.Run("ResolveSessionIdEscapesLikeWildcards", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		mustCreate(t, s, NewSession{ID: "20260315_092437_c9a6ff", Source: "cli"})
		mustCreate(t, s, NewSession{ID: "20260315X092437_c9a6ff", Source: "cli"})
		resolve(t, s, "20260315_092437", "20260315_092437_c9a6ff")
	})

	t.Run("ExportSession", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		mustCreate(t, s, NewSession{ID: "s1", Source: "cli", Model: "test"})
		mustAppend(t, s, "s1", NewMessage{Role: "user", Content: new("Hello")})
		mustAppend(t, s, "s1", NewMessage{Role: "assistant", Content: new("Hi")})
		e, err := s.ExportSession(t.Context(), "s1")
		if err != nil || e == nil {
			t.Fatalf("ExportSession = %v, %v", e, err)
		}
		if e.Source != "cli" {
			t.Errorf("source = %q, want cli", e.Source)
		}
		if len(e.Messages) != 2 {
			t.Errorf("len(messages) = %d, want 2", len(e.Messages))
		}
	})

	t.Run("ExportNonexistent", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		e, err := s.ExportSession(t.Context(), "nope")
		if !errors.Is(err, ErrNotFound) || e != nil {
			t.Errorf("ExportSession(nope) = %v, %v; want nil, ErrNotFound", e, err)
		}
	})

	t.Run("ExportAll", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		mustCreate(t, s, NewSession{ID: "s1", Source: "cli"})
		mustAppend(t, s, "s1", NewMessage{Role: "user", Content: new("A")})
		mustCreate(t, s, NewSession{ID: "s2", Source: "telegram"})
		all, err := s.ExportAll(t.Context(), "")
		if err != nil {
			t.Fatal(err)
		}
		if len(all) != 2 {
			t.Errorf("len(export_all()) = %d, want 2", len(all))
		}
	})

	t.Run("ExportAllWithSource", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		mustCreate(t, s, NewSession{ID: "s1", Source: "cli"})
		mustCreate(t, s, NewSession{ID: "s2", Source: "telegram"})
		all, err := s.ExportAll(t.Context(), "cli")
		if err != nil {
			t.Fatal(err)
		}
		if len(all) != 1 || all[0].Source != "cli" {
			t.Errorf("export_all(source=cli) = %+v, want one cli session", all)
		}
	})
}

// mustPrune is prune_sessions(older_than_days=days, source=source).
func mustPrune(t testing.TB, s *Store, days int, source, dir string) int {
	t.Helper()
	n, err := s.PruneSessions(t.Context(), PruneOptions{
		OlderThan: time.Duration(days) * 24 * time.Hour, Source: source, SessionsDir: dir,
	})
	if err != nil {
		t.Fatalf("PruneSessions: %v", err)
	}
	return n
}

func TestPruneSessions(t *testing.T) {
	t.Parallel()

	t.Run("PruneOldEndedSessions", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		mustCreate(t, s, NewSession{ID: "old", Source: "cli"})
		mustEnd(t, s, "old", "done")
		backdate(t, s, "old", nowTS()-100*hADay)
		mustCreate(t, s, NewSession{ID: "new", Source: "cli"})
		if n := mustPrune(t, s, 90, "", ""); n != 1 {
			t.Errorf("prune_sessions(90) = %d, want 1", n)
		}
		assertGone(t, s, "old")
		if id := mustSession(t, s, "new").ID; id != "new" {
			t.Errorf("new.id = %q", id)
		}
	})

	t.Run("PruneSkipsActiveSessions", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		mustCreate(t, s, NewSession{ID: "active", Source: "cli"})
		backdate(t, s, "active", nowTS()-200*hADay)
		if n := mustPrune(t, s, 90, "", ""); n != 0 {
			t.Errorf("prune_sessions(90) = %d, want 0", n)
		}
		mustSession(t, s, "active")
	})

	t.Run("PruneWithSourceFilter", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		for _, x := range []struct{ id, src string }{{"old_cli", "cli"}, {"old_tg", "telegram"}} {
			mustCreate(t, s, NewSession{ID: x.id, Source: x.src})
			mustEnd(t, s, x.id, "done")
			backdate(t, s, x.id, nowTS()-200*hADay)
		}
		if n := mustPrune(t, s, 90, "cli", ""); n != 1 {
			t.Errorf("prune_sessions(90, source=cli) = %d, want 1", n)
		}
		assertGone(t, s, "old_cli")
		mustSession(t, s, "old_tg")
	})

	t.Run("PruneWithMultilevelChain", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		now := nowTS()
		for _, x := range []struct {
			id, parent, reason string
			age                float64
		}{
			{"A", "", "compressed", 200}, {"B", "A", "compressed", 200},
			{"C", "B", "compressed", 10}, {"D", "C", "done", 10},
		} {
			mustCreate(t, s, NewSession{ID: x.id, Source: "cli", ParentSessionID: x.parent})
			mustEnd(t, s, x.id, x.reason)
			backdate(t, s, x.id, now-x.age*hADay)
		}
		if n := mustPrune(t, s, 90, "", ""); n != 2 {
			t.Errorf("prune_sessions(90) = %d, want 2", n)
		}
		assertGone(t, s, "A")
		assertGone(t, s, "B")
		if p := mustSession(t, s, "C").ParentSessionID; p != nil {
			t.Errorf("C.parent_session_id = %q, want None", *p)
		}
		if p := mustSession(t, s, "D").ParentSessionID; p == nil || *p != "C" {
			t.Errorf("D.parent_session_id = %v, want C", p)
		}
	})

	t.Run("PruneEntireOldChain", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		now := nowTS()
		for _, x := range []struct{ id, parent, reason string }{
			{"X", "", "compressed"}, {"Y", "X", "compressed"}, {"Z", "Y", "done"},
		} {
			mustCreate(t, s, NewSession{ID: x.id, Source: "cli", ParentSessionID: x.parent})
			mustEnd(t, s, x.id, x.reason)
			backdate(t, s, x.id, now-200*hADay)
		}
		if n := mustPrune(t, s, 90, "", ""); n != 3 {
			t.Errorf("prune_sessions(90) = %d, want 3", n)
		}
		for _, id := range []string{"X", "Y", "Z"} {
			assertGone(t, s, id)
		}
	})
}

func TestDeleteSessionOrphansChildren(t *testing.T) {
	t.Parallel()

	t.Run("DeleteOrphansChildren", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		mustCreate(t, s, NewSession{ID: "parent", Source: "cli"})
		mustCreate(t, s, NewSession{ID: "child", Source: "cli", ParentSessionID: "parent"})
		mustCreate(t, s, NewSession{ID: "grandchild", Source: "cli", ParentSessionID: "child"})
		if err := s.DeleteSession(t.Context(), "parent", ""); err != nil {
			t.Fatalf("DeleteSession(parent) = %v, want nil (True)", err)
		}
		assertGone(t, s, "parent")
		if p := mustSession(t, s, "child").ParentSessionID; p != nil {
			t.Errorf("child.parent_session_id = %q, want None", *p)
		}
		if p := mustSession(t, s, "grandchild").ParentSessionID; p == nil || *p != "child" {
			t.Errorf("grandchild.parent_session_id = %v, want child", p)
		}
	})
}

// TestExportJSONL checks the streamed export against ExportAll: the same
// sessions with the same messages in the same order, for every source and
// for one, with a 1,200-message session so that EachMessage's and the
// export's paging are crossed.
func TestExportJSONL(t *testing.T) {
	t.Parallel()
	// The clock advances only every third call, so many messages share a
	// timestamp and the (timestamp, id) order is exercised across pages.
	var calls atomic.Int64
	base := time.Unix(1_750_000_000, 123_456_000)
	clock := func() time.Time {
		return base.Add(time.Duration(calls.Add(1)/3) * time.Millisecond)
	}
	s, _ := openStore(t, &Options{Now: clock, Synchronous: SynchronousNormal})

	mustCreate(t, s, NewSession{ID: "a", Source: "cli", Model: "m1", ModelConfig: json.RawMessage(`{"temperature": 0.5}`)})
	mustAppend(t, s, "a", NewMessage{Role: "user", Content: new("héllo <b> & 日本")})
	mustAppend(t, s, "a", NewMessage{Role: "assistant", Content: new(""),
		ToolCalls: json.RawMessage(`[{"id":"c1","type":"function","function":{"name":"web_search","arguments":"{\"q\": \"<x>\"}"}}]`),
		Reasoning: new("why"), ReasoningContent: new(""), ReasoningDetails: json.RawMessage(`[{"type":"summary","text":"t"}]`)})
	mustAppend(t, s, "a", NewMessage{Role: "tool", Content: new(`{"ok": true}`), ToolCallID: "c1", ToolName: "web_search", TokenCount: new(int64(7))})
	mustCreate(t, s, NewSession{ID: "b", Source: "telegram"})
	mustCreate(t, s, NewSession{ID: "child", Source: "cli", ParentSessionID: "a"})
	mustAppend(t, s, "child", NewMessage{Role: "user", Content: nil, FinishReason: "stop"})
	mustCreate(t, s, NewSession{ID: "big", Source: "cli"})
	const bigN = 1200
	for i := range bigN {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		mustAppend(t, s, "big", NewMessage{Role: role, Content: new(fmt.Sprintf("message %d", i))})
	}
	if err := s.EndSession(t.Context(), "b", "done"); err != nil {
		t.Fatal(err)
	}

	for _, source := range []string{"", "cli", "telegram", "none"} {
		all, err := s.ExportAll(t.Context(), source)
		if err != nil {
			t.Fatalf("ExportAll(%q): %v", source, err)
		}
		var buf bytes.Buffer
		n, err := s.ExportJSONL(t.Context(), &buf, ExportOptions{Source: source})
		if err != nil {
			t.Fatalf("ExportJSONL(%q): %v", source, err)
		}
		if n != len(all) {
			t.Errorf("ExportJSONL(%q) = %d sessions, ExportAll %d", source, n, len(all))
		}
		if (source == "" || source == "cli") && !strings.Contains(buf.String(), `"héllo <b> & 日本"`) {
			t.Errorf("ExportJSONL(%q) escaped text: want <, & and non-ASCII written as they are", source)
		}
		var lines []string
		if buf.Len() > 0 {
			if !bytes.HasSuffix(buf.Bytes(), []byte("\n")) {
				t.Errorf("ExportJSONL(%q) output does not end with a newline", source)
			}
			lines = strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
		}
		got := make([]any, len(lines))
		bad := false
		for i, l := range lines {
			if err := json.Unmarshal([]byte(l), &got[i]); err != nil {
				bad = true
				var se *json.SyntaxError
				at := 0
				if errors.As(err, &se) {
					at = int(se.Offset)
				}
				lo, hi := max(at-60, 0), min(at+20, len(l))
				t.Errorf("ExportJSONL(%q) line %d is not JSON: %v, near byte %d: …%s…", source, i, err, at, l[lo:hi])
			}
		}
		if bad {
			continue
		}
		want := make([]any, len(all))
		for i, m := range asMaps(t, all) {
			want[i] = m
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("ExportJSONL(%q) lines vs ExportAll (-want +got):\n%s", source, diff)
		}
	}

	all, err := s.ExportAll(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range all {
		ids = append(ids, e.ID)
		if e.ID == "big" && len(e.Messages) != bigN {
			t.Errorf("export of big has %d messages, want %d", len(e.Messages), bigN)
		}
	}
	// last_active DESC: big's last message is the newest; then child, then
	// the session ended last but with no message (b, by its start), then a.
	if diff := cmp.Diff([]string{"big", "child", "b", "a"}, ids); diff != "" {
		t.Errorf("export order (-want +got):\n%s", diff)
	}

	msgs := mustMessages(t, s, "big")
	var each []Message
	if err := s.EachMessage(t.Context(), "big", func(m Message) error {
		each = append(each, m)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(msgs) != bigN {
		t.Errorf("GetMessages(big) = %d messages, want %d", len(msgs), bigN)
	}
	if diff := cmp.Diff(msgs, each); diff != "" {
		t.Errorf("EachMessage vs GetMessages (-GetMessages +EachMessage):\n%s", diff)
	}
	for i, m := range each {
		if want := fmt.Sprintf("message %d", i); deref(m.Content) != want {
			t.Fatalf("EachMessage[%d].content = %v, want %q", i, m.Content, want)
		}
	}
}
