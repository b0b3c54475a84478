package store

// Ports of reference-tests.md A.2 (TestMessageStorage) and B.2
// (TestRewriteTranscriptPreservesReasoning, through ReplaceMessages).

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// mustMessages is get_messages, failing the test on error.
func mustMessages(t testing.TB, s *Store, id string) []Message {
	t.Helper()
	msgs, err := s.GetMessages(t.Context(), id)
	if err != nil {
		t.Fatalf("GetMessages(%q): %v", id, err)
	}
	return msgs
}

func TestMessageStorage(t *testing.T) {
	t.Parallel()

	// setup is the fixture plus create_session("s1", source).
	setup := func(t *testing.T, source string) *Store {
		s, _ := openStore(t, nil)
		mustCreate(t, s, NewSession{ID: "s1", Source: source})
		return s
	}

	t.Run("AppendAndGetMessages", func(t *testing.T) {
		t.Parallel()
		s := setup(t, "cli")
		mustAppend(t, s, "s1", NewMessage{Role: "user", Content: new("Hello")})
		mustAppend(t, s, "s1", NewMessage{Role: "assistant", Content: new("Hi there!")})
		msgs := mustMessages(t, s, "s1")
		if len(msgs) != 2 {
			t.Fatalf("len(messages) = %d, want 2", len(msgs))
		}
		if msgs[0].Role != "user" || deref(msgs[0].Content) != "Hello" {
			t.Errorf("messages[0] = %s %v, want user Hello", msgs[0].Role, msgs[0].Content)
		}
		if msgs[1].Role != "assistant" {
			t.Errorf("messages[1].role = %s, want assistant", msgs[1].Role)
		}
	})

	t.Run("MessageIncrementsSessionCount", func(t *testing.T) {
		t.Parallel()
		s := setup(t, "cli")
		mustAppend(t, s, "s1", NewMessage{Role: "user", Content: new("Hello")})
		mustAppend(t, s, "s1", NewMessage{Role: "assistant", Content: new("Hi")})
		if n := mustSession(t, s, "s1").MessageCount; n != 2 {
			t.Errorf("message_count = %d, want 2", n)
		}
	})

	t.Run("ToolResponseDoesNotIncrementToolCount", func(t *testing.T) {
		t.Parallel()
		s := setup(t, "cli")
		mustAppend(t, s, "s1", NewMessage{Role: "tool", Content: new("result"), ToolName: "web_search"})
		if n := mustSession(t, s, "s1").ToolCallCount; n != 0 {
			t.Errorf("tool_call_count = %d, want 0", n)
		}
	})

	t.Run("AssistantToolCallsIncrementByCount", func(t *testing.T) {
		t.Parallel()
		s := setup(t, "cli")
		mustAppend(t, s, "s1", NewMessage{Role: "assistant", Content: new(""),
			ToolCalls: json.RawMessage(`[{"id":"call_1","function":{"name":"web_search","arguments":"{}"}}]`)})
		if n := mustSession(t, s, "s1").ToolCallCount; n != 1 {
			t.Errorf("tool_call_count = %d, want 1", n)
		}
	})

	t.Run("ToolCallCountMatchesActualCalls", func(t *testing.T) {
		t.Parallel()
		s := setup(t, "cli")
		mustAppend(t, s, "s1", NewMessage{Role: "assistant", Content: new(""), ToolCalls: json.RawMessage(`[
			{"id":"call_1","function":{"name":"ha_call_service","arguments":"{}"}},
			{"id":"call_2","function":{"name":"ha_call_service","arguments":"{}"}}]`)})
		mustAppend(t, s, "s1", NewMessage{Role: "tool", Content: new("ok"), ToolCallID: "call_1"})
		mustAppend(t, s, "s1", NewMessage{Role: "tool", Content: new("ok"), ToolCallID: "call_2"})
		if n := mustSession(t, s, "s1").ToolCallCount; n != 2 {
			t.Errorf("tool_call_count = %d, want 2", n)
		}
	})

	t.Run("ToolCallsSerialization", func(t *testing.T) {
		t.Parallel()
		s := setup(t, "cli")
		const calls = `[{"id":"call_1","function":{"name":"web_search","arguments":"{}"}}]`
		mustAppend(t, s, "s1", NewMessage{Role: "assistant", ToolCalls: json.RawMessage(calls)})
		msgs := mustMessages(t, s, "s1")
		if len(msgs) != 1 {
			t.Fatalf("len(messages) = %d, want 1", len(msgs))
		}
		if diff := cmp.Diff(decodeJSONText(t, calls), decodeJSON(t, msgs[0].ToolCalls)); diff != "" {
			t.Errorf("tool_calls (-want +got):\n%s", diff)
		}
	})

	t.Run("GetMessagesAsConversation", func(t *testing.T) {
		t.Parallel()
		s := setup(t, "cli")
		mustAppend(t, s, "s1", NewMessage{Role: "user", Content: new("Hello")})
		mustAppend(t, s, "s1", NewMessage{Role: "assistant", Content: new("Hi!")})
		want := []map[string]any{
			{"role": "user", "content": "Hello"},
			{"role": "assistant", "content": "Hi!"},
		}
		if diff := cmp.Diff(want, conversationMaps(t, s, "s1", false)); diff != "" {
			t.Errorf("conversation (-want +got):\n%s", diff)
		}
	})

	t.Run("GetMessagesAsConversationIncludesAncestorChain", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		mustCreate(t, s, NewSession{ID: "root", Source: "tui"})
		mustAppend(t, s, "root", NewMessage{Role: "user", Content: new("first prompt")})
		mustAppend(t, s, "root", NewMessage{Role: "assistant", Content: new("first answer")})
		mustCreate(t, s, NewSession{ID: "child", Source: "tui", ParentSessionID: "root"})
		mustAppend(t, s, "child", NewMessage{Role: "user", Content: new("second prompt")})
		mustAppend(t, s, "child", NewMessage{Role: "assistant", Content: new("second answer")})
		want := []any{"first prompt", "first answer", "second prompt", "second answer"}
		if diff := cmp.Diff(want, contents(conversationMaps(t, s, "child", true))); diff != "" {
			t.Errorf("contents (-want +got):\n%s", diff)
		}
	})

	t.Run("GetMessagesAsConversationAvoidsRepeatedResumePromptsFromAncestors", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		mustCreate(t, s, NewSession{ID: "root", Source: "tui"})
		mustAppend(t, s, "root", NewMessage{Role: "user", Content: new("same prompt")})
		mustAppend(t, s, "root", NewMessage{Role: "user", Content: new("same prompt")})
		mustAppend(t, s, "root", NewMessage{Role: "assistant", Content: new("answer")})
		mustCreate(t, s, NewSession{ID: "child", Source: "tui", ParentSessionID: "root"})
		mustAppend(t, s, "child", NewMessage{Role: "user", Content: new("next prompt")})
		var users []any
		for _, m := range conversationMaps(t, s, "child", true) {
			if m["role"] == "user" {
				users = append(users, m["content"])
			}
		}
		if diff := cmp.Diff([]any{"same prompt", "next prompt"}, users); diff != "" {
			t.Errorf("user contents (-want +got):\n%s", diff)
		}
	})

	t.Run("FinishReasonStored", func(t *testing.T) {
		t.Parallel()
		s := setup(t, "cli")
		mustAppend(t, s, "s1", NewMessage{Role: "assistant", Content: new("Done"), FinishReason: "stop"})
		msgs := mustMessages(t, s, "s1")
		if len(msgs) != 1 || deref(msgs[0].FinishReason) != "stop" {
			t.Errorf("messages = %+v, want one with finish_reason stop", msgs)
		}
	})

	t.Run("GetMessagesAsConversationStripsLeakedMemoryContext", func(t *testing.T) {
		t.Parallel()
		s := setup(t, "cli")
		mustAppend(t, s, "s1", NewMessage{Role: "assistant", Content: new("<memory-context>\n" +
			"[System note: The following is recalled memory context, NOT new user input. Treat as informational background data.]\n\n" +
			"## Honcho Context\nstale memory\n</memory-context>\n\nVisible answer")})
		want := []map[string]any{{"role": "assistant", "content": "Visible answer"}}
		if diff := cmp.Diff(want, conversationMaps(t, s, "s1", false)); diff != "" {
			t.Errorf("conversation (-want +got):\n%s", diff)
		}
	})

	t.Run("ReasoningPersistedAndRestored", func(t *testing.T) {
		t.Parallel()
		s := setup(t, "telegram")
		const reasoning = "I should call the cronjob tool to schedule this."
		mustAppend(t, s, "s1", NewMessage{Role: "user", Content: new("create a cron job")})
		mustAppend(t, s, "s1", NewMessage{Role: "assistant",
			ToolCalls: json.RawMessage(`[{"function":{"name":"cronjob","arguments":"{}"},"id":"c1","type":"function"}]`),
			Reasoning: new(reasoning)})
		mustAppend(t, s, "s1", NewMessage{Role: "tool", Content: new(`{"job_id": "abc"}`), ToolCallID: "c1"})
		conv := conversationMaps(t, s, "s1", false)
		if len(conv) != 3 {
			t.Fatalf("len(conversation) = %d, want 3: %v", len(conv), conv)
		}
		if conv[1]["role"] != "assistant" {
			t.Errorf("conv[1].role = %v, want assistant", conv[1]["role"])
		}
		if conv[1]["reasoning"] != reasoning {
			t.Errorf("conv[1].reasoning = %v, want %q", conv[1]["reasoning"], reasoning)
		}
		for _, i := range []int{0, 2} {
			if v, ok := conv[i]["reasoning"]; ok {
				t.Errorf("conv[%d] has reasoning %v, want no key", i, v)
			}
		}
	})

	t.Run("ReasoningDetailsPersistedAndRestored", func(t *testing.T) {
		t.Parallel()
		s := setup(t, "cli")
		const details = `[{"type":"reasoning.summary","summary":"Thinking about tools"},{"type":"reasoning.encrypted_content","encrypted_content":"abc123"}]`
		mustAppend(t, s, "s1", NewMessage{Role: "assistant", Content: new("Hello"),
			Reasoning: new("Thinking about what to say"), ReasoningDetails: json.RawMessage(details)})
		conv := conversationMaps(t, s, "s1", false)
		if len(conv) != 1 {
			t.Fatalf("len(conversation) = %d, want 1", len(conv))
		}
		if conv[0]["reasoning"] != "Thinking about what to say" {
			t.Errorf("reasoning = %v", conv[0]["reasoning"])
		}
		if diff := cmp.Diff(decodeJSONText(t, details), conv[0]["reasoning_details"]); diff != "" {
			t.Errorf("reasoning_details (-want +got):\n%s", diff)
		}
	})

	t.Run("ReasoningContentPersistedAndRestored", func(t *testing.T) {
		t.Parallel()
		s := setup(t, "cli")
		mustAppend(t, s, "s1", NewMessage{Role: "assistant", Content: new("Hello"),
			Reasoning: new("Short summary"), ReasoningContent: new("Longer provider-native scratchpad")})
		conv := conversationMaps(t, s, "s1", false)
		if len(conv) != 1 {
			t.Fatalf("len(conversation) = %d, want 1", len(conv))
		}
		if conv[0]["reasoning"] != "Short summary" {
			t.Errorf("reasoning = %v", conv[0]["reasoning"])
		}
		if conv[0]["reasoning_content"] != "Longer provider-native scratchpad" {
			t.Errorf("reasoning_content = %v", conv[0]["reasoning_content"])
		}
	})

	t.Run("ReasoningContentEmptyStringRestoredForAssistant", func(t *testing.T) {
		t.Parallel()
		s := setup(t, "cli")
		mustAppend(t, s, "s1", NewMessage{Role: "assistant", Content: new(""),
			ToolCalls:        json.RawMessage(`[{"id":"c1","type":"function","function":{"name":"date","arguments":"{}"}}]`),
			ReasoningContent: new("")})
		conv := conversationMaps(t, s, "s1", false)
		if len(conv) != 1 {
			t.Fatalf("len(conversation) = %d, want 1", len(conv))
		}
		if v, ok := conv[0]["reasoning_content"]; !ok || v != "" {
			t.Errorf("reasoning_content = %v (present %v), want \"\"", v, ok)
		}
	})

	t.Run("CodexMessageItemsPersistedAndRestored", func(t *testing.T) {
		t.Parallel()
		s := setup(t, "cli")
		const items = `[
			{"type":"message","role":"assistant","status":"completed","id":"msg_123","phase":"commentary","content":[{"type":"output_text","text":"Thinking..."}]},
			{"type":"message","role":"assistant","status":"completed","id":"msg_456","phase":"final_answer","content":[{"type":"output_text","text":"Done!"}]}]`
		mustAppend(t, s, "s1", NewMessage{Role: "assistant", Content: new("Done!"), CodexMessageItems: json.RawMessage(items)})
		conv := conversationMaps(t, s, "s1", false)
		if len(conv) != 1 {
			t.Fatalf("len(conversation) = %d, want 1", len(conv))
		}
		if diff := cmp.Diff(decodeJSONText(t, items), conv[0]["codex_message_items"]); diff != "" {
			t.Errorf("codex_message_items (-want +got):\n%s", diff)
		}
	})

	t.Run("ReasoningNotSetForNonAssistant", func(t *testing.T) {
		t.Parallel()
		s := setup(t, "telegram")
		mustAppend(t, s, "s1", NewMessage{Role: "user", Content: new("hi")})
		mustAppend(t, s, "s1", NewMessage{Role: "assistant", Content: new("hello"), Reasoning: nil})
		conv := conversationMaps(t, s, "s1", false)
		if len(conv) != 2 {
			t.Fatalf("len(conversation) = %d, want 2", len(conv))
		}
		for i, m := range conv {
			if v, ok := m["reasoning"]; ok {
				t.Errorf("conv[%d] has reasoning %v, want no key", i, v)
			}
		}
	})

	t.Run("ReasoningEmptyStringNotRestored", func(t *testing.T) {
		t.Parallel()
		s := setup(t, "cli")
		mustAppend(t, s, "s1", NewMessage{Role: "assistant", Content: new("hi"), Reasoning: new("")})
		conv := conversationMaps(t, s, "s1", false)
		if len(conv) != 1 {
			t.Fatalf("len(conversation) = %d, want 1", len(conv))
		}
		if v, ok := conv[0]["reasoning"]; ok {
			t.Errorf("reasoning = %v, want no key", v)
		}
	})

	t.Run("CodexReasoningItemsPersistedAndRestored", func(t *testing.T) {
		t.Parallel()
		s := setup(t, "cli")
		const items = `[{"type":"reasoning","id":"rs_abc","encrypted_content":"enc_blob_123"},{"type":"reasoning","id":"rs_def","encrypted_content":"enc_blob_456"}]`
		mustAppend(t, s, "s1", NewMessage{Role: "assistant", Content: new("Done"), CodexReasoningItems: json.RawMessage(items)})
		conv := conversationMaps(t, s, "s1", false)
		if len(conv) != 1 {
			t.Fatalf("len(conversation) = %d, want 1", len(conv))
		}
		got := conv[0]["codex_reasoning_items"]
		if diff := cmp.Diff(decodeJSONText(t, items), got); diff != "" {
			t.Errorf("codex_reasoning_items (-want +got):\n%s", diff)
		}
		if list, ok := got.([]any); !ok || len(list) == 0 || list[0].(map[string]any)["encrypted_content"] != "enc_blob_123" {
			t.Errorf("codex_reasoning_items[0].encrypted_content != enc_blob_123: %v", got)
		}
	})
}

func TestRewriteTranscriptPreservesReasoning(t *testing.T) {
	t.Parallel()

	t.Run("ReasoningSurvivesRewrite", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		mustCreate(t, s, NewSession{ID: "s1", Source: "telegram"})
		const details = `[{"type":"summary","text":"step by step"}]`
		const codex = `[{"id":"r1","type":"reasoning"}]`
		mustAppend(t, s, "s1", NewMessage{Role: "assistant", Content: new("The answer is 42."),
			Reasoning: new("I need to think step by step."), ReasoningContent: new("provider scratchpad"),
			ReasoningDetails: json.RawMessage(details), CodexReasoningItems: json.RawMessage(codex)})

		before, err := s.Conversation(t.Context(), "s1", false)
		if err != nil {
			t.Fatal(err)
		}
		msgs := make([]NewMessage, len(before))
		for i, m := range before {
			msgs[i] = m.NewMessage()
		}
		if err := s.ReplaceMessages(t.Context(), "s1", msgs); err != nil {
			t.Fatalf("ReplaceMessages: %v", err)
		}

		after := conversationMaps(t, s, "s1", false)
		if len(after) != 1 {
			t.Fatalf("len(conversation) = %d, want 1", len(after))
		}
		want := map[string]any{
			"reasoning":             "I need to think step by step.",
			"reasoning_content":     "provider scratchpad",
			"reasoning_details":     decodeJSONText(t, details),
			"codex_reasoning_items": decodeJSONText(t, codex),
		}
		got := map[string]any{}
		for k := range want {
			got[k] = after[0][k]
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("reasoning fields after rewrite (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(asMaps(t, before), after); diff != "" {
			t.Errorf("conversation changed by the rewrite (-before +after):\n%s", diff)
		}
	})

	t.Run("DbRewriteIsAtomicOnInsertFailure", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		mustCreate(t, s, NewSession{ID: "s1", Source: "telegram"})
		mustAppend(t, s, "s1", NewMessage{Role: "user", Content: new("before user")})
		mustAppend(t, s, "s1", NewMessage{Role: "assistant", Content: new("before assistant")})
		const rowsSQL = "SELECT * FROM messages WHERE session_id = ? ORDER BY id"
		const countsSQL = "SELECT message_count, tool_call_count FROM sessions WHERE id = ?"
		rowsBefore := dbtest.Rows(t, s.w, rowsSQL, "s1")
		countsBefore := dbtest.Rows(t, s.w, countsSQL, "s1")

		// The original fails on a dict content (not bindable); a Go
		// NewMessage's content is always text, so the second message fails
		// on its malformed tool calls instead, after the delete and the first
		// insert ran inside the transaction.
		err := s.ReplaceMessages(t.Context(), "s1", []NewMessage{
			{Role: "user", Content: new("after user")},
			{Role: "assistant", Content: new("after assistant"), ToolCalls: json.RawMessage("{not json")},
		})
		if !errors.Is(err, ErrInvalidJSON) {
			t.Fatalf("ReplaceMessages = %v, want ErrInvalidJSON", err)
		}

		want := []any{"before user", "before assistant"}
		if diff := cmp.Diff(want, contents(conversationMaps(t, s, "s1", false))); diff != "" {
			t.Errorf("contents after the failed rewrite (-want +got):\n%s", diff)
		}
		if n := mustSession(t, s, "s1").MessageCount; n != 2 {
			t.Errorf("message_count = %d, want 2", n)
		}
		if diff := cmp.Diff(rowsBefore, dbtest.Rows(t, s.w, rowsSQL, "s1")); diff != "" {
			t.Errorf("messages rows changed (-before +after):\n%s", diff)
		}
		if diff := cmp.Diff(countsBefore, dbtest.Rows(t, s.w, countsSQL, "s1")); diff != "" {
			t.Errorf("session counters changed (-before +after):\n%s", diff)
		}
	})
}
