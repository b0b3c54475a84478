package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// dumpTables returns every row of every table a write can touch, FTS
// indexes included, so two dumps are equal exactly when the database
// content is.
func dumpTables(t *testing.T, s *Store) map[string][][]any {
	t.Helper()
	out := map[string][][]any{}
	for _, table := range []string{"sessions", "messages", "state_meta", "messages_fts", "messages_fts_trigram", "sqlite_sequence", "schema_version"} {
		// The table names are this test's own constants.
		out[table] = dbtest.Rows(t, s.w, "SELECT rowid, * FROM "+table+" ORDER BY rowid")
	}
	return out
}

// seedBadInput gives a store some content for a failed call to leave alone:
// s1 titled "taken" with messages (one with tool calls), s2 with a message,
// a child of s1, token counts and a meta key.
func seedBadInput(t *testing.T, s *Store) {
	t.Helper()
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	_, err := s.CreateSession(ctx, NewSession{ID: "s1", Source: "cli", Model: "m", ModelConfig: json.RawMessage(`{"t":1}`)})
	must(err)
	_, err = s.CreateSession(ctx, NewSession{ID: "s2", Source: "telegram"})
	must(err)
	_, err = s.CreateSession(ctx, NewSession{ID: "s1-child", Source: "cli", ParentSessionID: "s1"})
	must(err)
	must(s.SetSessionTitle(ctx, "s1", "taken"))
	must(s.UpdateTokenCounts(ctx, "s1", TokenUpdate{InputTokens: 10, BillingProvider: "p"}))
	_, err = s.AppendMessage(ctx, "s1", NewMessage{Role: "user", Content: new("hello world 通信")})
	must(err)
	_, err = s.AppendMessage(ctx, "s1", NewMessage{Role: "assistant", ToolCalls: json.RawMessage(`[{"id":"c1","function":{"name":"web_search","arguments":"{}"}}]`), Reasoning: new("r")})
	must(err)
	_, err = s.AppendMessage(ctx, "s2", NewMessage{Role: "user", Content: new("second")})
	must(err)
	must(s.SetMeta(ctx, "k", "v"))
}

// noPanic runs fn and turns a panic into a test failure.
func noPanic(t *testing.T, what string, fn func()) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("%s panicked: %v", what, r)
		}
	}()
	fn()
}

// TestBadInput: every bad call returns its typed error, panics never, and
// leaves the database exactly as it was; the odd inputs that the original
// accepts (NUL bytes, huge messages, 10,000 tool calls, an empty id) work
// and round-trip.
func TestBadInput(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cancelled, cancel := context.WithCancel(ctx)
	cancel()

	okMsg := NewMessage{Role: "user", Content: new("x")}
	badUTF8 := "bad \xff\xfe text"
	tooLong := strings.Repeat("X", 150)

	// want lists acceptable errors: the call must return one of them.
	type badCase struct {
		name string
		op   func(ctx context.Context, s *Store) error
		want []error
		msg  string // when set, the error text must contain it
	}
	two := func(_ any, err error) error { return err }
	notFound := []error{ErrSessionNotFound}
	cases := []badCase{
		// Unknown sessions (the original raises IntegrityError or silently
		// changes nothing; the port reports ErrSessionNotFound).
		{name: "AppendMessageUnknownSession", op: func(ctx context.Context, s *Store) error { return two(s.AppendMessage(ctx, "nope", okMsg)) }, want: notFound},
		{name: "EndSessionUnknownSession", op: func(ctx context.Context, s *Store) error { return s.EndSession(ctx, "nope", "user_exit") }, want: notFound},
		{name: "ReopenSessionUnknownSession", op: func(ctx context.Context, s *Store) error { return s.ReopenSession(ctx, "nope") }, want: notFound},
		{name: "UpdateSystemPromptUnknownSession", op: func(ctx context.Context, s *Store) error { return s.UpdateSystemPrompt(ctx, "nope", "p") }, want: notFound},
		// (UpdateTokenCounts creates an unknown session, as upstream v21.)
		{name: "UpdateTokenCountsNaNCost", op: func(ctx context.Context, s *Store) error {
			return s.UpdateTokenCounts(ctx, "nope", TokenUpdate{InputTokens: 1, EstimatedCostUSD: new(math.NaN())})
		}, want: []error{ErrInvalidCost}},
		{name: "UpdateSessionModelUnknownSession", op: func(ctx context.Context, s *Store) error { return s.UpdateSessionModel(ctx, "nope", "m") }, want: notFound},
		{name: "UpdateSessionBillingRouteUnknownSession", op: func(ctx context.Context, s *Store) error {
			return s.UpdateSessionBillingRoute(ctx, "nope", BillingRoute{Provider: "p"})
		}, want: notFound},
		{name: "UpdateSessionMetaUnknownSession", op: func(ctx context.Context, s *Store) error { return s.UpdateSessionMeta(ctx, "nope", nil, "m") }, want: notFound},
		{name: "UpdateSessionCwdUnknownSession", op: func(ctx context.Context, s *Store) error {
			return s.UpdateSessionCwd(ctx, "nope", Workspace{Cwd: "/w"})
		}, want: notFound},
		{name: "DeleteSessionIfEmptyUnknownSession", op: func(ctx context.Context, s *Store) error { return two(s.DeleteSessionIfEmpty(ctx, "nope", "")) }, want: notFound},
		{name: "SetSessionTitleUnknownSession", op: func(ctx context.Context, s *Store) error { return s.SetSessionTitle(ctx, "nope", "fresh title") }, want: notFound},
		{name: "ClearMessagesUnknownSession", op: func(ctx context.Context, s *Store) error { return s.ClearMessages(ctx, "nope") }, want: notFound},
		{name: "ReplaceMessagesUnknownSession", op: func(ctx context.Context, s *Store) error {
			return s.ReplaceMessages(ctx, "nope", []NewMessage{okMsg})
		}, want: notFound},
		{name: "ReplaceMessagesEmptyUnknownSession", op: func(ctx context.Context, s *Store) error { return s.ReplaceMessages(ctx, "nope", nil) }, want: notFound},
		{name: "DeleteSessionUnknownSession", op: func(ctx context.Context, s *Store) error { return s.DeleteSession(ctx, "nope", "") }, want: notFound},

		{name: "MissingParent", op: func(ctx context.Context, s *Store) error {
			return two(s.CreateSession(ctx, NewSession{ID: "orphan", Source: "cli", ParentSessionID: "ghost"}))
		}, want: []error{ErrParentNotFound}},

		{name: "TitleTooLong", op: func(ctx context.Context, s *Store) error { return s.SetSessionTitle(ctx, "s2", tooLong) },
			want: []error{ErrTitleTooLong}, msg: "Title too long (150 chars, max 100)"},
		{name: "TitleInUse", op: func(ctx context.Context, s *Store) error { return s.SetSessionTitle(ctx, "s2", " taken ") },
			want: []error{ErrTitleInUse}, msg: "Title 'taken' is already in use by session s1"},
		{name: "TitleInUseUnknownSession", op: func(ctx context.Context, s *Store) error { return s.SetSessionTitle(ctx, "nope", "taken") },
			want: []error{ErrTitleInUse}, msg: "Title 'taken' is already in use by session s1"},

		// Invalid UTF-8: a Python str cannot hold it.
		{name: "InvalidUTF8Content", op: func(ctx context.Context, s *Store) error {
			return two(s.AppendMessage(ctx, "s1", NewMessage{Role: "user", Content: &badUTF8}))
		}, want: []error{ErrInvalidText}},
		{name: "InvalidUTF8Title", op: func(ctx context.Context, s *Store) error { return s.SetSessionTitle(ctx, "s2", badUTF8) }, want: []error{ErrInvalidText}},
		{name: "InvalidUTF8Source", op: func(ctx context.Context, s *Store) error {
			return two(s.CreateSession(ctx, NewSession{ID: "s3", Source: badUTF8}))
		}, want: []error{ErrInvalidText}},
		{name: "InvalidUTF8SessionID", op: func(ctx context.Context, s *Store) error {
			return two(s.CreateSession(ctx, NewSession{ID: badUTF8, Source: "cli"}))
		}, want: []error{ErrInvalidText}},
		{name: "InvalidUTF8ToolName", op: func(ctx context.Context, s *Store) error {
			return two(s.AppendMessage(ctx, "s1", NewMessage{Role: "tool", Content: new("r"), ToolName: badUTF8}))
		}, want: []error{ErrInvalidText}},
		{name: "InvalidUTF8Role", op: func(ctx context.Context, s *Store) error {
			return two(s.AppendMessage(ctx, "s1", NewMessage{Role: badUTF8, Content: new("r")}))
		}, want: []error{ErrInvalidText}},
		{name: "InvalidUTF8ToolCallID", op: func(ctx context.Context, s *Store) error {
			return two(s.AppendMessage(ctx, "s1", NewMessage{Role: "tool", Content: new("r"), ToolCallID: badUTF8}))
		}, want: []error{ErrInvalidText}},
		{name: "InvalidUTF8Reasoning", op: func(ctx context.Context, s *Store) error {
			return two(s.AppendMessage(ctx, "s1", NewMessage{Role: "assistant", Content: new("a"), Reasoning: &badUTF8}))
		}, want: []error{ErrInvalidText}},
		{name: "InvalidUTF8ReasoningContent", op: func(ctx context.Context, s *Store) error {
			return two(s.AppendMessage(ctx, "s1", NewMessage{Role: "assistant", Content: new("a"), ReasoningContent: &badUTF8}))
		}, want: []error{ErrInvalidText}},
		{name: "InvalidUTF8SystemPrompt", op: func(ctx context.Context, s *Store) error { return s.UpdateSystemPrompt(ctx, "s1", badUTF8) }, want: []error{ErrInvalidText}},
		{name: "InvalidUTF8EndReason", op: func(ctx context.Context, s *Store) error { return s.EndSession(ctx, "s2", badUTF8) }, want: []error{ErrInvalidText}},
		{name: "InvalidUTF8TokenModel", op: func(ctx context.Context, s *Store) error {
			return s.UpdateTokenCounts(ctx, "s2", TokenUpdate{InputTokens: 5, Model: badUTF8})
		}, want: []error{ErrInvalidText}},
		{name: "InvalidUTF8InReplace", op: func(ctx context.Context, s *Store) error {
			return s.ReplaceMessages(ctx, "s1", []NewMessage{okMsg, {Role: "user", Content: &badUTF8}})
		}, want: []error{ErrInvalidText}},
		{name: "InvalidUTF8InsideJSONString", op: func(ctx context.Context, s *Store) error {
			return two(s.AppendMessage(ctx, "s1", NewMessage{Role: "assistant", ToolCalls: json.RawMessage("[\"" + badUTF8 + "\"]")}))
		}, want: []error{ErrInvalidJSON, ErrInvalidText}},
		// A session id that is not UTF-8 names no session the store can
		// hold: either typed error is acceptable.
		{name: "InvalidUTF8SessionIDAppend", op: func(ctx context.Context, s *Store) error { return two(s.AppendMessage(ctx, badUTF8, okMsg)) },
			want: []error{ErrInvalidText, ErrSessionNotFound}},
		{name: "InvalidUTF8SessionIDTitle", op: func(ctx context.Context, s *Store) error { return s.SetSessionTitle(ctx, badUTF8, "t") },
			want: []error{ErrInvalidText, ErrSessionNotFound}},

		// Invalid JSON.
		{name: "InvalidJSONToolCalls", op: func(ctx context.Context, s *Store) error {
			return two(s.AppendMessage(ctx, "s1", NewMessage{Role: "assistant", ToolCalls: json.RawMessage(`[{"id":`)}))
		}, want: []error{ErrInvalidJSON}},
		{name: "InvalidJSONReasoningDetails", op: func(ctx context.Context, s *Store) error {
			return two(s.AppendMessage(ctx, "s1", NewMessage{Role: "assistant", ReasoningDetails: json.RawMessage(`{bad}`)}))
		}, want: []error{ErrInvalidJSON}},
		{name: "InvalidJSONCodexReasoningItems", op: func(ctx context.Context, s *Store) error {
			return two(s.AppendMessage(ctx, "s1", NewMessage{Role: "assistant", CodexReasoningItems: json.RawMessage(`nope`)}))
		}, want: []error{ErrInvalidJSON}},
		{name: "InvalidJSONCodexMessageItems", op: func(ctx context.Context, s *Store) error {
			return two(s.AppendMessage(ctx, "s1", NewMessage{Role: "assistant", CodexMessageItems: json.RawMessage(`[1,]`)}))
		}, want: []error{ErrInvalidJSON}},
		{name: "InvalidJSONModelConfig", op: func(ctx context.Context, s *Store) error {
			return two(s.CreateSession(ctx, NewSession{ID: "s3", Source: "cli", ModelConfig: json.RawMessage(`{"a":1}}`)}))
		}, want: []error{ErrInvalidJSON}},
		{name: "InvalidJSONInReplace", op: func(ctx context.Context, s *Store) error {
			return s.ReplaceMessages(ctx, "s1", []NewMessage{okMsg, {Role: "assistant", ToolCalls: json.RawMessage(`[`)}})
		}, want: []error{ErrInvalidJSON}},
	}
	// A cancelled context stops every write before it changes anything.
	for _, c := range []struct {
		name string
		op   func(ctx context.Context, s *Store) error
	}{
		{"CreateSession", func(ctx context.Context, s *Store) error {
			return two(s.CreateSession(ctx, NewSession{ID: "s3", Source: "cli"}))
		}},
		{"AppendMessage", func(ctx context.Context, s *Store) error { return two(s.AppendMessage(ctx, "s1", okMsg)) }},
		{"SetSessionTitle", func(ctx context.Context, s *Store) error { return s.SetSessionTitle(ctx, "s2", "new title") }},
		{"UpdateTokenCounts", func(ctx context.Context, s *Store) error {
			return s.UpdateTokenCounts(ctx, "s1", TokenUpdate{InputTokens: 1})
		}},
		{"EndSession", func(ctx context.Context, s *Store) error { return s.EndSession(ctx, "s2", "user_exit") }},
		{"ReplaceMessages", func(ctx context.Context, s *Store) error { return s.ReplaceMessages(ctx, "s1", []NewMessage{okMsg}) }},
		{"ClearMessages", func(ctx context.Context, s *Store) error { return s.ClearMessages(ctx, "s1") }},
		{"DeleteSession", func(ctx context.Context, s *Store) error { return s.DeleteSession(ctx, "s1", "") }},
		{"SetMeta", func(ctx context.Context, s *Store) error { return s.SetMeta(ctx, "k", "other") }},
	} {
		op := c.op
		cases = append(cases, badCase{
			name: "CancelledContext" + c.name,
			op:   func(_ context.Context, s *Store) error { return op(cancelled, s) },
			want: []error{context.Canceled},
		})
	}

	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, _ := openStore(t, nil)
			seedBadInput(t, s)
			before := dumpTables(t, s)
			var err error
			noPanic(t, tc.name, func() { err = tc.op(ctx, s) })
			matched := false
			for _, w := range tc.want {
				matched = matched || errors.Is(err, w)
			}
			if !matched {
				t.Errorf("error = %v, want one of %v", err, tc.want)
			} else if tc.msg != "" && !strings.Contains(fmt.Sprint(err), tc.msg) {
				t.Errorf("error = %q, want it to contain %q", err, tc.msg)
			}
			if diff := cmp.Diff(before, dumpTables(t, s)); diff != "" {
				t.Errorf("database changed by a failed call (-before +after):\n%s", diff)
			}
			// The store is still usable.
			if _, err := s.AppendMessage(ctx, "s2", NewMessage{Role: "user", Content: new("after")}); err != nil {
				t.Errorf("AppendMessage after the failed call: %v", err)
			}
		})
	}

	t.Run("TitleInUseErrorMessage", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		seedBadInput(t, s)
		err := s.SetSessionTitle(ctx, "s2", "taken")
		var inUse *TitleInUseError
		if !errors.As(err, &inUse) {
			t.Fatalf("error %v is not a *TitleInUseError", err)
		}
		if got, want := inUse.Error(), "Title 'taken' is already in use by session s1"; got != want {
			t.Errorf("message = %q, want %q", got, want)
		}
	})

	t.Run("NULBytesRoundTrip", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		createSessions(t, s, "n")
		content := "\x00lead mid\x00dle trail\x00"
		padded := "  " + content + "  "
		var err error
		noPanic(t, "AppendMessage", func() {
			if _, err = s.AppendMessage(ctx, "n", NewMessage{Role: "user", Content: &content}); err == nil {
				_, err = s.AppendMessage(ctx, "n", NewMessage{Role: "assistant", Content: &padded, Reasoning: &content})
			}
			if err == nil {
				_, err = s.AppendMessage(ctx, "n", NewMessage{Role: "tool", Content: &padded, ToolCallID: "c\x00"})
			}
		})
		if err != nil {
			t.Fatalf("AppendMessage with NUL bytes: %v", err)
		}
		msgs, err := s.GetMessages(ctx, "n")
		if err != nil || len(msgs) != 3 {
			t.Fatalf("GetMessages = %v, %v", msgs, err)
		}
		got := []any{msgs[0].Content, msgs[1].Content, msgs[1].Reasoning, msgs[2].Content, msgs[2].ToolCallID}
		want := []any{&content, &padded, &content, &padded, new("c\x00")}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("GetMessages (-want +got):\n%s", diff)
		}
		conv, err := s.Conversation(ctx, "n", false)
		if err != nil {
			t.Fatal(err)
		}
		// User and assistant content is stripped (NUL is not whitespace);
		// a tool's is kept as stored.
		wantConv := []ConversationMessage{
			{Role: "user", Content: &content, Timestamp: msgs[0].Timestamp},
			{Role: "assistant", Content: &content, Timestamp: msgs[1].Timestamp, Reasoning: content},
			{Role: "tool", Content: &padded, Timestamp: msgs[2].Timestamp, ToolCallID: "c\x00"},
		}
		if diff := cmp.Diff(wantConv, conv); diff != "" {
			t.Errorf("Conversation (-want +got):\n%s", diff)
		}
		export, err := s.ExportSession(ctx, "n")
		if err != nil || export.Messages[0].Content == nil || *export.Messages[0].Content != content {
			t.Errorf("ExportSession content = %v, %v", export, err)
		}
	})

	t.Run("TenMegabyteMessage", func(t *testing.T) {
		t.Parallel()
		s, path := openStore(t, nil)
		createSessions(t, s, "big")
		content := strings.Repeat("0123456789abcdé通", (10<<20)/19+1) + "end"
		var err error
		noPanic(t, "AppendMessage", func() {
			_, err = s.AppendMessage(ctx, "big", NewMessage{Role: "user", Content: &content})
		})
		if err != nil {
			t.Fatalf("AppendMessage(%d bytes): %v", len(content), err)
		}
		msgs, err := s.GetMessages(ctx, "big")
		if err != nil || len(msgs) != 1 || msgs[0].Content == nil {
			t.Fatalf("GetMessages: %d messages, %v", len(msgs), err)
		}
		if *msgs[0].Content != content {
			t.Errorf("GetMessages content: %d bytes, differs from the %d written", len(*msgs[0].Content), len(content))
		}
		conv, err := s.Conversation(ctx, "big", false)
		if err != nil || len(conv) != 1 || conv[0].Content == nil || *conv[0].Content != content {
			t.Errorf("Conversation does not round-trip the content (err %v)", err)
		}
		if n := rawCount(t, path, "SELECT length(content) FROM messages"); n != int64(len([]rune(content))) {
			t.Errorf("length(content) = %d, want %d code points", n, len([]rune(content)))
		}
		if n := rawCount(t, path, "SELECT message_count FROM sessions WHERE id = 'big'"); n != 1 {
			t.Errorf("message_count = %d, want 1", n)
		}
	})

	t.Run("TenThousandToolCalls", func(t *testing.T) {
		t.Parallel()
		s, path := openStore(t, nil)
		createSessions(t, s, "tc")
		if _, err := s.AppendMessage(ctx, "tc", NewMessage{Role: "assistant", ToolCalls: json.RawMessage(`[{"id":"first"}]`)}); err != nil {
			t.Fatal(err)
		}
		var in, py strings.Builder
		in.WriteString("[")
		py.WriteString("[")
		for i := range 10000 {
			if i > 0 {
				in.WriteString(",")
				py.WriteString(", ")
			}
			fmt.Fprintf(&in, `{"id":"call_%d","type":"function","function":{"name":"f","arguments":"{\"n\": %d}"}}`, i, i)
			fmt.Fprintf(&py, `{"id": "call_%d", "type": "function", "function": {"name": "f", "arguments": "{\"n\": %d}"}}`, i, i)
		}
		in.WriteString("]")
		py.WriteString("]")
		var id int64
		var err error
		noPanic(t, "AppendMessage", func() {
			id, err = s.AppendMessage(ctx, "tc", NewMessage{Role: "assistant", ToolCalls: json.RawMessage(in.String())})
		})
		if err != nil {
			t.Fatal(err)
		}
		if n := rawCount(t, path, "SELECT tool_call_count FROM sessions WHERE id = 'tc'"); n != 10001 {
			t.Errorf("tool_call_count = %d, want 1 + 10000", n)
		}
		stored := rawString(t, path, "SELECT tool_calls FROM messages WHERE id = ?", id)
		if stored != py.String() {
			t.Errorf("stored tool_calls is not json.dumps text (%d bytes, want %d)", len(stored), py.Len())
		}
		msgs, err := s.GetMessages(ctx, "tc")
		if err != nil || len(msgs) != 2 || string(msgs[1].ToolCalls) != py.String() {
			t.Errorf("GetMessages tool_calls does not round-trip (err %v)", err)
		}
	})

	t.Run("EmptySessionID", func(t *testing.T) {
		t.Parallel()
		// The original accepts "" as a session id like any other.
		s, _ := openStore(t, nil)
		var err error
		noPanic(t, "CreateSession", func() {
			var id string
			id, err = s.CreateSession(ctx, NewSession{ID: "", Source: "cli"})
			if err == nil && id != "" {
				err = fmt.Errorf("CreateSession returned id %q", id)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.AppendMessage(ctx, "", NewMessage{Role: "user", Content: new("hi")}); err != nil {
			t.Fatalf("AppendMessage(\"\"): %v", err)
		}
		if err := s.SetSessionTitle(ctx, "", "empty id"); err != nil {
			t.Fatalf("SetSessionTitle(\"\"): %v", err)
		}
		if title, err := s.SessionTitle(ctx, ""); err != nil || title != "empty id" {
			t.Errorf("SessionTitle(\"\") = %q, %v", title, err)
		}
		if err := s.EndSession(ctx, "", "user_exit"); err != nil {
			t.Fatalf("EndSession(\"\"): %v", err)
		}
		if ids := richIDs(listRich(t, s, ListOptions{})); !cmp.Equal(ids, []string{""}) {
			t.Errorf("ListSessionsRich ids = %q, want [\"\"]", ids)
		}
		conv, err := s.Conversation(ctx, "", false)
		if diff := cmp.Diff([]ConversationMessage{{Role: "user", Content: new("hi")}}, untimed(t, conv)); err != nil || diff != "" {
			t.Errorf("Conversation(\"\") err %v (-want +got):\n%s", err, diff)
		}
		if got, err := s.ResolveResumeSessionID(ctx, ""); err != nil || got != "" {
			t.Errorf("ResolveResumeSessionID(\"\") = %q, %v", got, err)
		}
		if err := s.DeleteSession(ctx, "", ""); err != nil {
			t.Fatalf("DeleteSession(\"\"): %v", err)
		}
		if _, err := s.GetSession(ctx, ""); !errors.Is(err, ErrNotFound) {
			t.Errorf("GetSession(\"\") after delete = %v, want ErrNotFound", err)
		}
	})

	t.Run("CancelledContextReads", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		seedBadInput(t, s)
		noPanic(t, "reads", func() {
			if _, err := s.GetMessages(cancelled, "s1"); !errors.Is(err, context.Canceled) {
				t.Errorf("GetMessages = %v, want context.Canceled", err)
			}
			if _, err := s.ListSessionsRich(cancelled, ListOptions{}); !errors.Is(err, context.Canceled) {
				t.Errorf("ListSessionsRich = %v, want context.Canceled", err)
			}
		})
	})
}

// rawCount reads one integer through a plain connection.
func rawCount(t *testing.T, path, query string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := rawDB(t, path).QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// rawString reads one text value through a plain connection.
func rawString(t *testing.T, path, query string, args ...any) string {
	t.Helper()
	var s string
	if err := rawDB(t, path).QueryRow(query, args...).Scan(&s); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return s
}
