package store

// Ports of upstream c2a3b9ce5's tests/test_hermes_state.py
// TestMessageStorage (34 tests), one Go subtest per upstream test, in
// upstream's order. See docs/upstream-tests/messages.md.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// untimed returns conv with every Timestamp zeroed, after checking each
// is set: for tests on the real clock, whose times are not known.
func untimed(t testing.TB, conv []ConversationMessage) []ConversationMessage {
	t.Helper()
	out := make([]ConversationMessage, len(conv))
	for i, m := range conv {
		if m.Timestamp <= 0 {
			t.Errorf("conversation message %d has no timestamp: %+v", i, m)
		}
		m.Timestamp = 0
		out[i] = m
	}
	return out
}

// clockStore opens a store whose clock starts at 1000 s and steps 1 s per
// timestamp it takes, with session s1 of source.
func clockStore(t *testing.T, source string) *Store {
	t.Helper()
	s, _ := openStore(t, &Options{Now: stepClock(time.Unix(1000, 0), time.Second)})
	mustCreate(t, s, NewSession{ID: "s1", Source: source})
	return s
}

// conversationOf is Conversation(id, includeAncestors), failing the test on
// error.
func conversationOf(t testing.TB, s *Store, id string, includeAncestors bool) []ConversationMessage {
	t.Helper()
	conv, err := s.Conversation(t.Context(), id, includeAncestors)
	if err != nil {
		t.Fatalf("Conversation(%q): %v", id, err)
	}
	return conv
}

// ts is a Timestamp pointer, for NewMessage.Timestamp.
func ts(v float64) *Timestamp { return new(Timestamp(v)) }

// multimodal is upstream's multimodal test content, as a Go caller passes it.
const multimodal = `[{"type": "text", "text": "describe this screenshot"}, {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KG..."}}]`

// upstream: TestMessageStorage (every test, one subtest each)
func TestUpstreamMessageStorage(t *testing.T) {
	t.Parallel()
	ctx := t.Context()

	// upstream: TestMessageStorage::test_append_and_get_messages
	t.Run("AppendAndGetMessages", func(t *testing.T) {
		t.Parallel()
		s := clockStore(t, "cli")
		mustAppend(t, s, "s1", NewMessage{Role: "user", Content: new("Hello")})
		mustAppend(t, s, "s1", NewMessage{Role: "assistant", Content: new("Hi there!")})
		got := mustMessages(t, s, "s1")
		want := []string{"user Hello", "assistant Hi there!"}
		var roles []string
		for _, m := range got {
			roles = append(roles, m.Role+" "+deref(m.Content))
		}
		if diff := cmp.Diff(want, roles); diff != "" {
			t.Errorf("messages (-want +got):\n%s", diff)
		}
	})

	// upstream: TestMessageStorage::test_append_message_sets_active_for_transcript_loader
	t.Run("AppendMessageSetsActiveForTranscriptLoader", func(t *testing.T) {
		t.Parallel()
		s := clockStore(t, "discord")
		id := mustAppend(t, s, "s1", NewMessage{Role: "user", Content: new("Hello")})
		got := dbtest.Values[int64](t, s.w, "SELECT active FROM messages WHERE id = ?", id)
		if diff := cmp.Diff([]int64{1}, got); diff != "" {
			t.Errorf("active (-want +got):\n%s", diff)
		}
		if n := len(conversationOf(t, s, "s1", false)); n != 1 {
			t.Errorf("len(conversation) = %d, want 1", n)
		}
	})

	// legacyFile writes upstream's hand-made legacy file of the next two
	// tests (stamped version, sessions and messages without most columns,
	// active added without a default) with one session s1, then runs
	// extra.
	legacyFile := func(t *testing.T, version int, extra ...string) string {
		path := filepath.Join(t.TempDir(), "legacy_state.db")
		conn := rawDB(t, path)
		dbtest.Exec(t, conn, `CREATE TABLE schema_version (version INTEGER)`)
		dbtest.Exec(t, conn, fmt.Sprintf(`INSERT INTO schema_version VALUES (%d)`, version))
		dbtest.Exec(t, conn, `CREATE TABLE sessions (
			id TEXT PRIMARY KEY, source TEXT, started_at REAL, ended_at REAL,
			message_count INTEGER DEFAULT 0, tool_call_count INTEGER DEFAULT 0,
			title TEXT, parent_session_id TEXT, model_config TEXT)`)
		dbtest.Exec(t, conn, `CREATE TABLE messages (
			id INTEGER PRIMARY KEY AUTOINCREMENT,
			session_id TEXT NOT NULL, role TEXT NOT NULL, content TEXT,
			tool_call_id TEXT, tool_calls TEXT, tool_name TEXT,
			timestamp REAL NOT NULL, token_count INTEGER, finish_reason TEXT,
			reasoning TEXT, reasoning_content TEXT, reasoning_details TEXT,
			codex_reasoning_items TEXT, codex_message_items TEXT,
			platform_message_id TEXT, observed INTEGER DEFAULT 0)`)
		dbtest.Exec(t, conn, `CREATE TABLE state_meta (key TEXT PRIMARY KEY, value TEXT)`)
		dbtest.Exec(t, conn, `ALTER TABLE messages ADD COLUMN active INTEGER`)
		dbtest.Exec(t, conn, `ALTER TABLE messages ADD COLUMN compacted INTEGER DEFAULT 0`)
		dbtest.Exec(t, conn, `INSERT INTO sessions (id, source, started_at) VALUES ('s1', 'discord', 1.0)`)
		for _, stmt := range extra {
			dbtest.Exec(t, conn, stmt)
		}
		conn.Close()
		return path
	}

	// upstream: TestMessageStorage::test_append_message_active_one_when_column_has_no_default
	t.Run("AppendMessageActiveOneWhenColumnHasNoDefault", func(t *testing.T) {
		t.Parallel()
		s := openAt(t, legacyFile(t, 11), nil)
		// The column keeps no default after the upgrade (upstream's
		// reconcile never rebuilds a column): only the INSERT's explicit
		// active = 1 makes the row live.
		if got := dbtest.Rows(t, s.w, "SELECT dflt_value FROM pragma_table_info('messages') WHERE name = 'active'"); !cmp.Equal(got, [][]any{{nil}}) {
			t.Fatalf("active's default = %v, want none (the legacy file's)", got)
		}
		id := mustAppend(t, s, "s1", NewMessage{Role: "user", Content: new("gateway turn")})
		if err := s.ReplaceMessages(ctx, "s1", []NewMessage{{Role: "user", Content: new("replaced")}, {Role: "assistant", Content: new("ok")}}); err != nil {
			t.Fatal(err)
		}
		if n, err := s.ArchiveAndCompact(ctx, "s1", []NewMessage{{Role: "user", Content: new("summary")}}); err != nil || n != 1 {
			t.Fatalf("ArchiveAndCompact = %d, %v", n, err)
		}
		if got := dbtest.Values[int64](t, s.w, "SELECT active FROM messages ORDER BY id"); !cmp.Equal(got, []int64{0, 0, 1}) {
			t.Errorf("active after replace and compaction = %v, want [0 0 1]", got)
		}
		id = mustAppend(t, s, "s1", NewMessage{Role: "user", Content: new("gateway turn")})
		got := dbtest.Values[int64](t, s.w, "SELECT active FROM messages WHERE id = ?", id)
		if diff := cmp.Diff([]int64{1}, got); diff != "" {
			t.Errorf("active (-want +got):\n%s", diff)
		}
		if n := len(conversationOf(t, s, "s1", false)); n != 2 {
			t.Errorf("len(conversation) = %d, want 2 (the summary and the turn)", n)
		}
	})

	// upstream: TestMessageStorage::test_startup_heals_null_active_rows
	t.Run("StartupHealsNullActiveRows", func(t *testing.T) {
		t.Parallel()
		path := legacyFile(t, 12, `INSERT INTO messages (session_id, role, content, timestamp) VALUES ('s1', 'user', 'old hidden turn', 1.0)`)
		s := openAt(t, path, nil)
		got := dbtest.Values[int64](t, s.w, "SELECT active FROM messages WHERE content = 'old hidden turn'")
		if diff := cmp.Diff([]int64{1}, got); diff != "" {
			t.Errorf("active (-want +got):\n%s", diff)
		}
		if n := len(conversationOf(t, s, "s1", false)); n != 1 {
			t.Errorf("len(conversation) = %d, want 1", n)
		}
	})

	// upstream: TestMessageStorage::test_append_message_accepts_explicit_timestamp
	t.Run("AppendMessageAcceptsExplicitTimestamp", func(t *testing.T) {
		t.Parallel()
		s := clockStore(t, "telegram")
		mustAppend(t, s, "s1", NewMessage{Role: "user", Content: new("Hello"), Timestamp: ts(1777383653.0)})
		if got := conversationOf(t, s, "s1", false)[0].Timestamp; got != 1777383653.0 {
			t.Errorf("timestamp = %v, want 1777383653.0", got)
		}
	})

	// upstream: TestMessageStorage::test_message_increments_session_count
	t.Run("MessageIncrementsSessionCount", func(t *testing.T) {
		t.Parallel()
		s := clockStore(t, "cli")
		mustAppend(t, s, "s1", NewMessage{Role: "user", Content: new("Hello")})
		mustAppend(t, s, "s1", NewMessage{Role: "assistant", Content: new("Hi")})
		if n := mustSession(t, s, "s1").MessageCount; n != 2 {
			t.Errorf("message_count = %d, want 2", n)
		}
	})

	// upstream: TestMessageStorage::test_observed_flag_round_trips_for_gateway_replay
	t.Run("ObservedFlagRoundTripsForGatewayReplay", func(t *testing.T) {
		t.Parallel()
		s := clockStore(t, "telegram:-100")
		mustAppend(t, s, "s1", NewMessage{Role: "user", Content: new("[Alice|111]\nside chatter"), Observed: true})
		mustAppend(t, s, "s1", NewMessage{Role: "assistant", Content: new("ack")})
		msgs := mustMessages(t, s, "s1")
		if got := []int64{deref(msgs[0].Observed), deref(msgs[1].Observed)}; !cmp.Equal(got, []int64{1, 0}) || msgs[1].Observed == nil {
			t.Errorf("observed = %v, want [1 0]", got)
		}
		want := []ConversationMessage{
			{Role: "user", Content: new("[Alice|111]\nside chatter"), Timestamp: 1001, Observed: true},
			{Role: "assistant", Content: new("ack"), Timestamp: 1002},
		}
		conv := conversationOf(t, s, "s1", false)
		if diff := cmp.Diff(want, conv); diff != "" {
			t.Errorf("conversation (-want +got):\n%s", diff)
		}
		// The JSON form: observed only where set, timestamp a float.
		if diff := cmp.Diff([]map[string]any{
			{"role": "user", "content": "[Alice|111]\nside chatter", "timestamp": 1001.0, "observed": true},
			{"role": "assistant", "content": "ack", "timestamp": 1002.0},
		}, asMaps(t, conv)); diff != "" {
			t.Errorf("conversation JSON (-want +got):\n%s", diff)
		}
	})

	// upstream: TestMessageStorage::test_tool_response_does_not_increment_tool_count
	t.Run("ToolResponseDoesNotIncrementToolCount", func(t *testing.T) {
		t.Parallel()
		s := clockStore(t, "cli")
		mustAppend(t, s, "s1", NewMessage{Role: "tool", Content: new("result"), ToolName: "web_search"})
		if n := mustSession(t, s, "s1").ToolCallCount; n != 0 {
			t.Errorf("tool_call_count = %d, want 0", n)
		}
	})

	// upstream: TestMessageStorage::test_assistant_tool_calls_increment_by_count
	t.Run("AssistantToolCallsIncrementByCount", func(t *testing.T) {
		t.Parallel()
		s := clockStore(t, "cli")
		mustAppend(t, s, "s1", NewMessage{Role: "assistant", Content: new(""),
			ToolCalls: json.RawMessage(`[{"id": "call_1", "function": {"name": "web_search", "arguments": "{}"}}]`)})
		if n := mustSession(t, s, "s1").ToolCallCount; n != 1 {
			t.Errorf("tool_call_count = %d, want 1", n)
		}
	})

	// upstream: TestMessageStorage::test_tool_call_count_matches_actual_calls
	t.Run("ToolCallCountMatchesActualCalls", func(t *testing.T) {
		t.Parallel()
		s := clockStore(t, "cli")
		mustAppend(t, s, "s1", NewMessage{Role: "assistant", Content: new(""), ToolCalls: json.RawMessage(`[
			{"id": "call_1", "function": {"name": "ha_call_service", "arguments": "{}"}},
			{"id": "call_2", "function": {"name": "ha_call_service", "arguments": "{}"}}]`)})
		mustAppend(t, s, "s1", NewMessage{Role: "tool", Content: new("ok"), ToolName: "ha_call_service"})
		mustAppend(t, s, "s1", NewMessage{Role: "tool", Content: new("ok"), ToolName: "ha_call_service"})
		if n := mustSession(t, s, "s1").ToolCallCount; n != 2 {
			t.Errorf("tool_call_count = %d, want 2 (the calls made, not the messages)", n)
		}
	})

	// upstream: TestMessageStorage::test_tool_calls_serialization
	t.Run("ToolCallsSerialization", func(t *testing.T) {
		t.Parallel()
		s := clockStore(t, "cli")
		calls := `[{"id": "call_1", "function": {"name": "web_search", "arguments": "{}"}}]`
		mustAppend(t, s, "s1", NewMessage{Role: "assistant", ToolCalls: json.RawMessage(calls)})
		if got := string(mustMessages(t, s, "s1")[0].ToolCalls); got != calls {
			t.Errorf("tool_calls = %s, want %s", got, calls)
		}
	})

	// upstream: TestMessageStorage::test_multimodal_list_content_round_trip
	t.Run("MultimodalListContentRoundTrip", func(t *testing.T) {
		t.Parallel()
		s := clockStore(t, "cli")
		mustAppend(t, s, "s1", NewMessage{Role: "user", ContentJSON: json.RawMessage(multimodal)})
		msgs := mustMessages(t, s, "s1")
		if len(msgs) != 1 || msgs[0].Content != nil || string(msgs[0].ContentJSON) != multimodal {
			t.Errorf("GetMessages = %d messages, content %v, %s; want the list", len(msgs), msgs[0].Content, msgs[0].ContentJSON)
		}
		conv := conversationOf(t, s, "s1", false)
		want := []ConversationMessage{{Role: "user", ContentJSON: json.RawMessage(multimodal), Timestamp: 1001}}
		if diff := cmp.Diff(want, conv); diff != "" {
			t.Errorf("conversation (-want +got):\n%s", diff)
		}
		// Stored as upstream stores it: the NUL-prefixed json.dumps text,
		// whose SQLite length() is 0.
		raw := dbtest.Rows(t, s.w, "SELECT hex(CAST(content AS BLOB)), length(content) FROM messages")
		if diff := cmp.Diff([][]any{{hexOf("\x00json:" + multimodal), int64(0)}}, raw); diff != "" {
			t.Errorf("stored content (-want +got):\n%s", diff)
		}
	})

	// upstream: TestMessageStorage::test_dict_content_round_trip
	t.Run("DictContentRoundTrip", func(t *testing.T) {
		t.Parallel()
		s := clockStore(t, "cli")
		mustAppend(t, s, "s1", NewMessage{Role: "user", ContentJSON: json.RawMessage(`{"parts":[{"text":"hi"}]}`)})
		if got := string(mustMessages(t, s, "s1")[0].ContentJSON); got != `{"parts": [{"text": "hi"}]}` {
			t.Errorf("content = %s, want the dict in Python's json.dumps form", got)
		}
	})

	// upstream: TestMessageStorage::test_string_content_unchanged_by_encoding
	t.Run("StringContentUnchangedByEncoding", func(t *testing.T) {
		t.Parallel()
		s := clockStore(t, "cli")
		mustAppend(t, s, "s1", NewMessage{Role: "user", Content: new("plain text")})
		mustAppend(t, s, "s1", NewMessage{Role: "user", ContentJSON: json.RawMessage(`"a JSON string"`)})
		got := dbtest.Values[string](t, s.w, "SELECT content FROM messages WHERE session_id = 's1' ORDER BY id")
		if diff := cmp.Diff([]string{"plain text", "a JSON string"}, got); diff != "" {
			t.Errorf("stored content (-want +got):\n%s", diff)
		}
	})

	// upstream: TestMessageStorage::test_replace_messages_persists_tool_name
	t.Run("ReplaceMessagesPersistsToolName", func(t *testing.T) {
		t.Parallel()
		s := clockStore(t, "cli")
		if err := s.ReplaceMessages(ctx, "s1", []NewMessage{
			{Role: "user", Content: new("do something")},
			{Role: "tool", Content: new("some results"), ToolCallID: "c1", ToolName: "web_search"},
		}); err != nil {
			t.Fatal(err)
		}
		if got := deref(mustMessages(t, s, "s1")[1].ToolName); got != "web_search" {
			t.Errorf("tool_name = %q, want web_search", got)
		}
	})

	// upstream: TestMessageStorage::test_tool_effect_disposition_round_trips_through_session_db
	t.Run("ToolEffectDispositionRoundTripsThroughSessionDB", func(t *testing.T) {
		t.Parallel()
		s := clockStore(t, "cli")
		if err := s.ReplaceMessages(ctx, "s1", []NewMessage{
			{Role: "tool", Content: new("worker detached"), ToolCallID: "c1", ToolName: "write_file", EffectDisposition: "unknown"},
		}); err != nil {
			t.Fatal(err)
		}
		if got := conversationOf(t, s, "s1", false)[0].EffectDisposition; got != "unknown" {
			t.Errorf("effect_disposition = %q, want unknown", got)
		}
	})

	// upstream: TestMessageStorage::test_replace_messages_handles_multimodal_content
	t.Run("ReplaceMessagesHandlesMultimodalContent", func(t *testing.T) {
		t.Parallel()
		s := clockStore(t, "cli")
		content := `[{"type": "text", "text": "look at this"}, {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAA"}}]`
		if err := s.ReplaceMessages(ctx, "s1", []NewMessage{
			{Role: "user", ContentJSON: json.RawMessage(content)},
			{Role: "assistant", Content: new("I see a screenshot.")},
		}); err != nil {
			t.Fatal(err)
		}
		msgs := mustMessages(t, s, "s1")
		if len(msgs) != 2 || string(msgs[0].ContentJSON) != content || deref(msgs[1].Content) != "I see a screenshot." {
			t.Errorf("messages = %+v", msgs)
		}
	})

	// upstream: TestMessageStorage::test_get_messages_as_conversation
	t.Run("GetMessagesAsConversation", func(t *testing.T) {
		t.Parallel()
		s := clockStore(t, "cli")
		mustAppend(t, s, "s1", NewMessage{Role: "user", Content: new("Hello")})
		mustAppend(t, s, "s1", NewMessage{Role: "assistant", Content: new("Hi!")})
		want := []map[string]any{
			{"role": "user", "content": "Hello", "timestamp": 1001.0},
			{"role": "assistant", "content": "Hi!", "timestamp": 1002.0},
		}
		if diff := cmp.Diff(want, asMaps(t, conversationOf(t, s, "s1", false))); diff != "" {
			t.Errorf("conversation (-want +got):\n%s", diff)
		}
	})

	// upstream: TestMessageStorage::test_get_messages_as_conversation_orders_by_id_not_timestamp
	t.Run("GetMessagesAsConversationOrdersByIDNotTimestamp", func(t *testing.T) {
		t.Parallel()
		s := clockStore(t, "cli")
		calls := `[{"id": "call_1", "function": {"name": "web_search", "arguments": "{}"}}]`
		mustAppend(t, s, "s1", NewMessage{Role: "assistant", Content: new(""), ToolCalls: json.RawMessage(calls), Timestamp: ts(1000)})
		mustAppend(t, s, "s1", NewMessage{Role: "tool", Content: new("result"), ToolName: "web_search", ToolCallID: "call_1", Timestamp: ts(999)})
		mustAppend(t, s, "s1", NewMessage{Role: "user", Content: new("thanks"), Timestamp: ts(998)})
		want := []ConversationMessage{
			{Role: "assistant", Content: new(""), Timestamp: 1000, ToolCalls: json.RawMessage(calls)},
			{Role: "tool", Content: new("result"), Timestamp: 999, ToolCallID: "call_1", ToolName: "web_search"},
			{Role: "user", Content: new("thanks"), Timestamp: 998},
		}
		if diff := cmp.Diff(want, conversationOf(t, s, "s1", false)); diff != "" {
			t.Errorf("conversation (-want +got):\n%s", diff)
		}
	})

	// upstream: TestMessageStorage::test_platform_message_id_round_trips
	t.Run("PlatformMessageIDRoundTrips", func(t *testing.T) {
		t.Parallel()
		s := clockStore(t, "yuanbao")
		mustAppend(t, s, "s1", NewMessage{Role: "user", Content: new("hi"), PlatformMessageID: "abc-123"})
		mustAppend(t, s, "s1", NewMessage{Role: "assistant", Content: new("hello")})
		want := []map[string]any{
			{"role": "user", "content": "hi", "timestamp": 1001.0, "message_id": "abc-123"},
			{"role": "assistant", "content": "hello", "timestamp": 1002.0},
		}
		if diff := cmp.Diff(want, asMaps(t, conversationOf(t, s, "s1", false))); diff != "" {
			t.Errorf("conversation (-want +got):\n%s", diff)
		}
	})

	// upstream: TestMessageStorage::test_replace_messages_preserves_platform_message_id
	t.Run("ReplaceMessagesPreservesPlatformMessageID", func(t *testing.T) {
		t.Parallel()
		s := clockStore(t, "yuanbao")
		// Upstream's dict carries the id under message_id, the key a
		// replay returns it with: ConversationMessage.MessageID.
		user := ConversationMessage{Role: "user", Content: new("x"), MessageID: "ext-1"}.NewMessage()
		if err := s.ReplaceMessages(ctx, "s1", []NewMessage{user, {Role: "assistant", Content: new("y")}}); err != nil {
			t.Fatal(err)
		}
		conv := conversationOf(t, s, "s1", false)
		if got := []string{conv[0].MessageID, conv[1].MessageID}; !cmp.Equal(got, []string{"ext-1", ""}) {
			t.Errorf("message ids = %q, want [ext-1 \"\"]", got)
		}
	})

	// upstream: TestMessageStorage::test_get_messages_as_conversation_includes_ancestor_chain
	t.Run("GetMessagesAsConversationIncludesAncestorChain", func(t *testing.T) {
		t.Parallel()
		s := clockStore(t, "tui")
		mustCreate(t, s, NewSession{ID: "root", Source: "tui"})
		mustAppend(t, s, "root", NewMessage{Role: "user", Content: new("first prompt")})
		mustAppend(t, s, "root", NewMessage{Role: "assistant", Content: new("first answer")})
		mustCreate(t, s, NewSession{ID: "child", Source: "tui", ParentSessionID: "root"})
		mustAppend(t, s, "child", NewMessage{Role: "user", Content: new("second prompt")})
		mustAppend(t, s, "child", NewMessage{Role: "assistant", Content: new("second answer")})
		want := []any{"first prompt", "first answer", "second prompt", "second answer"}
		if diff := cmp.Diff(want, contents(asMaps(t, conversationOf(t, s, "child", true)))); diff != "" {
			t.Errorf("contents (-want +got):\n%s", diff)
		}
	})

	// upstream: TestMessageStorage::test_get_messages_as_conversation_avoids_repeated_resume_prompts_from_ancestors
	t.Run("GetMessagesAsConversationAvoidsRepeatedResumePromptsFromAncestors", func(t *testing.T) {
		t.Parallel()
		s := clockStore(t, "tui")
		mustCreate(t, s, NewSession{ID: "root", Source: "tui"})
		mustAppend(t, s, "root", NewMessage{Role: "user", Content: new("same prompt")})
		mustAppend(t, s, "root", NewMessage{Role: "user", Content: new("same prompt")})
		mustAppend(t, s, "root", NewMessage{Role: "assistant", Content: new("answer")})
		mustCreate(t, s, NewSession{ID: "child", Source: "tui", ParentSessionID: "root"})
		mustAppend(t, s, "child", NewMessage{Role: "user", Content: new("next prompt")})
		var users []string
		for _, m := range conversationOf(t, s, "child", true) {
			if m.Role == "user" {
				users = append(users, deref(m.Content))
			}
		}
		if diff := cmp.Diff([]string{"same prompt", "next prompt"}, users); diff != "" {
			t.Errorf("user contents (-want +got):\n%s", diff)
		}
	})

	// upstream: TestMessageStorage::test_finish_reason_stored
	t.Run("FinishReasonStored", func(t *testing.T) {
		t.Parallel()
		s := clockStore(t, "cli")
		mustAppend(t, s, "s1", NewMessage{Role: "assistant", Content: new("Done"), FinishReason: "stop"})
		if got := deref(mustMessages(t, s, "s1")[0].FinishReason); got != "stop" {
			t.Errorf("finish_reason = %q, want stop", got)
		}
	})

	// upstream: TestMessageStorage::test_get_messages_as_conversation_strips_leaked_memory_context
	t.Run("GetMessagesAsConversationStripsLeakedMemoryContext", func(t *testing.T) {
		t.Parallel()
		s := clockStore(t, "cli")
		mustAppend(t, s, "s1", NewMessage{Role: "assistant", Content: new("<memory-context>\n" +
			"[System note: The following is recalled memory context, NOT new user input. Treat as informational background data.]\n\n" +
			"## Honcho Context\nstale memory\n</memory-context>\n\nVisible answer")})
		want := []map[string]any{{"role": "assistant", "content": "Visible answer", "timestamp": 1001.0}}
		if diff := cmp.Diff(want, asMaps(t, conversationOf(t, s, "s1", false))); diff != "" {
			t.Errorf("conversation (-want +got):\n%s", diff)
		}
	})

	// upstream: TestMessageStorage::test_reasoning_persisted_and_restored
	t.Run("ReasoningPersistedAndRestored", func(t *testing.T) {
		t.Parallel()
		s := clockStore(t, "telegram")
		const reasoning = "I should call the cronjob tool to schedule this."
		calls := `[{"function": {"name": "cronjob", "arguments": "{}"}, "id": "c1", "type": "function"}]`
		mustAppend(t, s, "s1", NewMessage{Role: "user", Content: new("create a cron job")})
		mustAppend(t, s, "s1", NewMessage{Role: "assistant", ToolCalls: json.RawMessage(calls), Reasoning: new(reasoning)})
		mustAppend(t, s, "s1", NewMessage{Role: "tool", Content: new(`{"job_id": "abc"}`), ToolCallID: "c1"})
		want := []ConversationMessage{
			{Role: "user", Content: new("create a cron job"), Timestamp: 1001},
			{Role: "assistant", Timestamp: 1002, ToolCalls: json.RawMessage(calls), Reasoning: reasoning},
			{Role: "tool", Content: new(`{"job_id": "abc"}`), Timestamp: 1003, ToolCallID: "c1"},
		}
		if diff := cmp.Diff(want, conversationOf(t, s, "s1", false)); diff != "" {
			t.Errorf("conversation (-want +got):\n%s", diff)
		}
	})

	// upstream: TestMessageStorage::test_reasoning_details_persisted_and_restored
	t.Run("ReasoningDetailsPersistedAndRestored", func(t *testing.T) {
		t.Parallel()
		s := clockStore(t, "telegram")
		details := `[{"type": "reasoning.summary", "summary": "Thinking about tools"}, {"type": "reasoning.encrypted_content", "encrypted_content": "abc123"}]`
		mustAppend(t, s, "s1", NewMessage{Role: "assistant", Content: new("Hello"), Reasoning: new("Thinking about what to say"),
			ReasoningDetails: json.RawMessage(details)})
		conv := conversationOf(t, s, "s1", false)
		if len(conv) != 1 || conv[0].Reasoning != "Thinking about what to say" || string(conv[0].ReasoningDetails) != details {
			t.Errorf("conversation = %+v", conv)
		}
	})

	// upstream: TestMessageStorage::test_finish_reason_restored_by_get_messages_as_conversation
	t.Run("FinishReasonRestoredByGetMessagesAsConversation", func(t *testing.T) {
		t.Parallel()
		s := clockStore(t, "cli")
		mustAppend(t, s, "s1", NewMessage{Role: "assistant", Content: new("Done"), FinishReason: "tool_calls"})
		mustAppend(t, s, "s1", NewMessage{Role: "user", Content: new("next"), FinishReason: "stop"})
		want := []map[string]any{
			{"role": "assistant", "content": "Done", "timestamp": 1001.0, "finish_reason": "tool_calls"},
			{"role": "user", "content": "next", "timestamp": 1002.0}, // not on a user message, even when stored
		}
		if diff := cmp.Diff(want, asMaps(t, conversationOf(t, s, "s1", false))); diff != "" {
			t.Errorf("conversation (-want +got):\n%s", diff)
		}
	})

	// upstream: TestMessageStorage::test_reasoning_content_persisted_and_restored
	t.Run("ReasoningContentPersistedAndRestored", func(t *testing.T) {
		t.Parallel()
		s := clockStore(t, "cli")
		mustAppend(t, s, "s1", NewMessage{Role: "assistant", Content: new("Hello"), Reasoning: new("Short summary"),
			ReasoningContent: new("Longer provider-native scratchpad")})
		conv := conversationOf(t, s, "s1", false)
		if conv[0].Reasoning != "Short summary" || deref(conv[0].ReasoningContent) != "Longer provider-native scratchpad" {
			t.Errorf("conversation = %+v", conv)
		}
	})

	// upstream: TestMessageStorage::test_reasoning_content_empty_string_restored_for_assistant
	t.Run("ReasoningContentEmptyStringRestoredForAssistant", func(t *testing.T) {
		t.Parallel()
		s := clockStore(t, "cli")
		mustAppend(t, s, "s1", NewMessage{Role: "assistant", Content: new(""),
			ToolCalls:        json.RawMessage(`[{"id": "c1", "type": "function", "function": {"name": "date", "arguments": "{}"}}]`),
			ReasoningContent: new("")})
		got := asMaps(t, conversationOf(t, s, "s1", false))
		if v, ok := got[0]["reasoning_content"]; !ok || v != "" {
			t.Errorf("reasoning_content = %v (present %v), want \"\"", v, ok)
		}
	})

	// upstream: TestMessageStorage::test_codex_message_items_persisted_and_restored
	t.Run("CodexMessageItemsPersistedAndRestored", func(t *testing.T) {
		t.Parallel()
		s := clockStore(t, "cli")
		items := `[{"type": "message", "role": "assistant", "status": "completed", "id": "msg_123", "phase": "commentary", "content": [{"type": "output_text", "text": "Thinking..."}]}, ` +
			`{"type": "message", "role": "assistant", "status": "completed", "id": "msg_456", "phase": "final_answer", "content": [{"type": "output_text", "text": "Done!"}]}]`
		mustAppend(t, s, "s1", NewMessage{Role: "assistant", Content: new("Done!"), CodexMessageItems: json.RawMessage(items)})
		if got := string(conversationOf(t, s, "s1", false)[0].CodexMessageItems); got != items {
			t.Errorf("codex_message_items = %s, want %s", got, items)
		}
	})

	// upstream: TestMessageStorage::test_reasoning_not_set_for_non_assistant
	t.Run("ReasoningNotSetForNonAssistant", func(t *testing.T) {
		t.Parallel()
		s := clockStore(t, "telegram")
		mustAppend(t, s, "s1", NewMessage{Role: "user", Content: new("hi"), Reasoning: new("leaked?")})
		mustAppend(t, s, "s1", NewMessage{Role: "assistant", Content: new("hello")})
		for i, m := range asMaps(t, conversationOf(t, s, "s1", false)) {
			if v, ok := m["reasoning"]; ok {
				t.Errorf("conversation[%d] has reasoning %v, want no key", i, v)
			}
		}
	})

	// upstream: TestMessageStorage::test_reasoning_empty_string_not_restored
	t.Run("ReasoningEmptyStringNotRestored", func(t *testing.T) {
		t.Parallel()
		s := clockStore(t, "cli")
		mustAppend(t, s, "s1", NewMessage{Role: "assistant", Content: new("hi"), Reasoning: new("")})
		if v, ok := asMaps(t, conversationOf(t, s, "s1", false))[0]["reasoning"]; ok {
			t.Errorf("reasoning = %v, want no key", v)
		}
	})

	// upstream: TestMessageStorage::test_codex_reasoning_items_persisted_and_restored
	t.Run("CodexReasoningItemsPersistedAndRestored", func(t *testing.T) {
		t.Parallel()
		s := clockStore(t, "cli")
		items := `[{"type": "reasoning", "id": "rs_abc", "encrypted_content": "enc_blob_123"}, {"type": "reasoning", "id": "rs_def", "encrypted_content": "enc_blob_456"}]`
		mustAppend(t, s, "s1", NewMessage{Role: "assistant", Content: new("Done"), CodexReasoningItems: json.RawMessage(items)})
		got := asMaps(t, conversationOf(t, s, "s1", false))[0]["codex_reasoning_items"]
		want := []any{
			map[string]any{"type": "reasoning", "id": "rs_abc", "encrypted_content": "enc_blob_123"},
			map[string]any{"type": "reasoning", "id": "rs_def", "encrypted_content": "enc_blob_456"},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("codex_reasoning_items (-want +got):\n%s", diff)
		}
	})
}

// hexOf is SQLite's hex() of s's bytes.
func hexOf(s string) string {
	const digits = "0123456789ABCDEF"
	out := make([]byte, 0, 2*len(s))
	for i := 0; i < len(s); i++ {
		out = append(out, digits[s[i]>>4], digits[s[i]&0xF])
	}
	return string(out)
}

// upstream: TestGetMessagesPagination (every test, one subtest each)
func TestUpstreamGetMessagesPagination(t *testing.T) {
	t.Parallel()
	seed := func(t *testing.T, n int) *Store {
		s, _ := openStore(t, quick(nil))
		seedAlternating(t, s, "s1", n, "msg-%d")
		return s
	}
	page := func(t *testing.T, s *Store, opts MessageOptions) []string {
		t.Helper()
		msgs, err := s.GetMessagesWith(t.Context(), "s1", opts)
		if err != nil {
			t.Fatal(err)
		}
		out := []string{}
		for _, m := range msgs {
			out = append(out, deref(m.Content))
		}
		return out
	}
	texts := func(from, to int) []string {
		out := []string{}
		for i := from; i < to; i++ {
			out = append(out, fmt.Sprintf("msg-%d", i))
		}
		return out
	}

	// upstream: TestGetMessagesPagination::test_default_returns_all_messages
	t.Run("DefaultReturnsAllMessages", func(t *testing.T) {
		t.Parallel()
		s := seed(t, 10)
		if diff := cmp.Diff(texts(0, 10), page(t, s, MessageOptions{})); diff != "" {
			t.Errorf("messages (-want +got):\n%s", diff)
		}
	})

	// upstream: TestGetMessagesPagination::test_limit_pages_in_insertion_order
	t.Run("LimitPagesInInsertionOrder", func(t *testing.T) {
		t.Parallel()
		s := seed(t, 10)
		got := [][]string{
			page(t, s, MessageOptions{Limit: 4}),
			page(t, s, MessageOptions{Limit: 4, Offset: 4}),
			page(t, s, MessageOptions{Limit: 4, Offset: 8}),
		}
		if diff := cmp.Diff([][]string{texts(0, 4), texts(4, 8), texts(8, 10)}, got); diff != "" {
			t.Errorf("pages (-want +got):\n%s", diff)
		}
	})

	// upstream: TestGetMessagesPagination::test_offset_past_end_returns_empty
	t.Run("OffsetPastEndReturnsEmpty", func(t *testing.T) {
		t.Parallel()
		s := seed(t, 3)
		if got := page(t, s, MessageOptions{Limit: 5, Offset: 10}); len(got) != 0 {
			t.Errorf("page = %v, want none", got)
		}
	})

	// upstream: TestGetMessagesPagination::test_pagination_respects_active_flag
	t.Run("PaginationRespectsActiveFlag", func(t *testing.T) {
		t.Parallel()
		s := seed(t, 6)
		execSQL(t, s, `UPDATE messages SET active = 0 WHERE session_id = 's1'
			AND id IN (SELECT id FROM messages WHERE session_id = 's1' ORDER BY id LIMIT 2)`)
		if diff := cmp.Diff(texts(2, 5), page(t, s, MessageOptions{Limit: 3})); diff != "" {
			t.Errorf("page (-want +got):\n%s", diff)
		}
		// With the inactive rows, they take their slots again.
		if diff := cmp.Diff(texts(0, 3), page(t, s, MessageOptions{Limit: 3, IncludeInactive: true})); diff != "" {
			t.Errorf("page with inactive rows (-want +got):\n%s", diff)
		}
	})

	// upstream: TestGetMessagesPagination::test_offset_without_limit_pages
	t.Run("OffsetWithoutLimitPages", func(t *testing.T) {
		t.Parallel()
		s := seed(t, 5)
		if diff := cmp.Diff(texts(3, 5), page(t, s, MessageOptions{Offset: 3})); diff != "" {
			t.Errorf("messages (-want +got):\n%s", diff)
		}
	})
}

// TestConversationJSONLeavesHTMLToTheEncoder: a conversation message's
// JSON form escapes <, > and & only when the encoder asks for it (the
// command line's JSON does not), as encoding/json does for a plain struct;
// structured content is a JSON value.
func TestConversationJSONLeavesHTMLToTheEncoder(t *testing.T) {
	t.Parallel()
	m := ConversationMessage{Role: "user", Content: new("<b> & \u2028"), Timestamp: 1.5}
	var plain bytes.Buffer
	enc := json.NewEncoder(&plain)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ got, want string }{
		{string(mustJSON(t, m)), `{"role":"user","content":"\u003cb\u003e \u0026 \u2028","timestamp":1.5}`},
		{plain.String(), `{"role":"user","content":"<b> & \u2028","timestamp":1.5}` + "\n"},
		{string(mustJSON(t, ConversationMessage{Role: "user", ContentJSON: json.RawMessage(`[{"type": "text"}]`)})), `{"role":"user","content":[{"type":"text"}]}`},
		{string(mustJSON(t, ConversationMessage{Role: "assistant"})), `{"role":"assistant","content":null}`},
	} {
		if tc.got != tc.want {
			t.Errorf("JSON = %s, want %s", tc.got, tc.want)
		}
	}
}
