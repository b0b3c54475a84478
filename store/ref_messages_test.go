package store

// Port of reference-tests.md B.2 (TestRewriteTranscriptPreservesReasoning,
// through ReplaceMessages). A.2, TestMessageStorage, is ported at v21 in
// up_messages_test.go.

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
