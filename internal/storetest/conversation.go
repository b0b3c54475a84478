package storetest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/hermesstate/hermesstate/store"
)

func init() {
	register(group{"conversation", testConversation})
}

func testConversation(t *testing.T, h Harness) {
	ctx := t.Context()
	s, _ := openClocked(t, h)
	n := 0
	add := func(id string, m store.NewMessage) int64 {
		t.Helper()
		n++
		m.Timestamp = ptr(at(time.Duration(n) * time.Second))
		return appendMsg(t, s, id, m)
	}
	create(t, s, cli("p"))
	add("p", store.NewMessage{Role: "user", Content: ptr("  hi <memory-context>secret</memory-context> ")})
	add("p", store.NewMessage{
		Role: "assistant", Content: ptr("hello"), FinishReason: "stop", Reasoning: ptr("r"), ReasoningContent: ptr(""),
		ReasoningDetails: json.RawMessage(`[1]`), ToolCalls: json.RawMessage(`[{"id":"t1"}]`), TokenCount: ptr(int64(9)),
	})
	add("p", store.NewMessage{Role: "tool", Content: ptr("  raw  "), ToolCallID: "t1", ToolName: "sh", EffectDisposition: "done"})
	add("p", store.NewMessage{Role: "user", Content: ptr("again"), PlatformMessageID: "m7", Observed: true})
	create(t, s, store.NewSession{ID: "c", Source: "cli", ParentSessionID: "p"})
	add("c", store.NewMessage{Role: "user", Content: ptr("again")})
	add("c", store.NewMessage{Role: "user", Content: ptr("\n Review the conversation above and update the skill library now")})
	add("c", store.NewMessage{Role: "assistant", Content: ptr("curator reply")})
	add("c", store.NewMessage{Role: "assistant", ContentJSON: json.RawMessage(`[{"type":"text","text":"real"}]`)})
	add("c", store.NewMessage{Role: "system", Content: ptr("sys  ")})
	gone := add("c", store.NewMessage{Role: "user", Content: ptr("gone")})
	_, err := s.RewindToMessage(ctx, "c", gone)
	ok(t, err)

	hi := store.ConversationMessage{Role: "user", Content: ptr("hi"), Timestamp: at(1 * time.Second)}
	hello := store.ConversationMessage{
		Role: "assistant", Content: ptr("hello"), Timestamp: at(2 * time.Second), ToolCalls: json.RawMessage(`[{"id": "t1"}]`),
		FinishReason: "stop", Reasoning: "r", ReasoningContent: ptr(""), ReasoningDetails: json.RawMessage(`[1]`),
	}
	raw := store.ConversationMessage{Role: "tool", Content: ptr("  raw  "), Timestamp: at(3 * time.Second), ToolCallID: "t1", ToolName: "sh", EffectDisposition: "done"}
	again := store.ConversationMessage{Role: "user", Content: ptr("again"), Timestamp: at(4 * time.Second), MessageID: "m7", Observed: true}
	againChild := store.ConversationMessage{Role: "user", Content: ptr("again"), Timestamp: at(5 * time.Second)}
	real := store.ConversationMessage{Role: "assistant", ContentJSON: json.RawMessage(`[{"type": "text", "text": "real"}]`), Timestamp: at(8 * time.Second)}
	sys := store.ConversationMessage{Role: "system", Content: ptr("sys  "), Timestamp: at(9 * time.Second)}
	goneMsg := store.ConversationMessage{Role: "user", Content: ptr("gone"), Timestamp: at(10 * time.Second)}

	for _, c := range []struct {
		name string
		id   string
		opts store.ConversationOptions
		want []store.ConversationMessage
	}{
		{"Parent", "p", store.ConversationOptions{}, []store.ConversationMessage{hi, hello, raw, again}},
		{"Child", "c", store.ConversationOptions{}, []store.ConversationMessage{againChild, real, sys}},
		{"Ancestors", "c", store.ConversationOptions{IncludeAncestors: true}, []store.ConversationMessage{hi, hello, raw, again, real, sys}},
		{"Inactive", "c", store.ConversationOptions{IncludeInactive: true}, []store.ConversationMessage{againChild, real, sys, goneMsg}},
		{"Unknown", "nope", store.ConversationOptions{}, []store.ConversationMessage{}},
	} {
		got, err := s.ConversationWith(ctx, c.id, c.opts)
		ok(t, err)
		equal(t, c.name, got, c.want)
		if c.opts.IncludeInactive {
			continue
		}
		got, err = s.Conversation(ctx, c.id, c.opts.IncludeAncestors)
		ok(t, err)
		equal(t, c.name+" (Conversation)", got, c.want)
	}

	t.Run("JSON", func(t *testing.T) {
		for _, c := range []struct {
			m    store.ConversationMessage
			want string
		}{
			{hello, `{"role":"assistant","content":"hello","timestamp":1750000002.0,"tool_calls":[{"id":"t1"}],"finish_reason":"stop","reasoning":"r","reasoning_content":"","reasoning_details":[1]}`},
			{again, `{"role":"user","content":"again","timestamp":1750000004.0,"message_id":"m7","observed":true}`},
			{real, `{"role":"assistant","content":[{"type":"text","text":"real"}],"timestamp":1750000008.0}`},
		} {
			b, err := json.Marshal(c.m)
			ok(t, err)
			equal(t, "JSON", string(b), c.want)
		}
	})
	t.Run("WrittenBack", func(t *testing.T) {
		conv, err := s.Conversation(ctx, "p", false)
		ok(t, err)
		var msgs []store.NewMessage
		for _, m := range conv {
			msgs = append(msgs, m.NewMessage())
		}
		create(t, s, cli("copy"))
		ok(t, s.ReplaceMessages(ctx, "copy", msgs))
		got, err := s.Conversation(ctx, "copy", false)
		ok(t, err)
		equal(t, "replayed copy", got, conv)
	})
}
