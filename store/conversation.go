package store

import (
	"context"
	"encoding/json"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/pyjson"
	"github.com/hermesstate/hermesstate/internal/pytext"
)

// ConversationMessage is a message shaped for replay to a model, as the
// original's get_messages_as_conversation builds it. Its JSON form has the
// original's keys: role and content always, the others only when set.
type ConversationMessage struct {
	Role string `json:"role"`
	// Content is nil when the message has none. For user and assistant
	// messages leaked memory-context blocks are removed and the text
	// trimmed; other roles keep their content as stored.
	Content    *string         `json:"content"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
	ToolName   string          `json:"tool_name,omitempty"`
	ToolCalls  json.RawMessage `json:"tool_calls,omitempty"` // [] when the stored JSON does not decode

	// The reasoning fields are set on assistant messages only. Reasoning is
	// omitted when empty; ReasoningContent is kept even when "".
	Reasoning        string  `json:"reasoning,omitempty"`
	ReasoningContent *string `json:"reasoning_content,omitempty"`
	// ReasoningDetails, CodexReasoningItems and CodexMessageItems hold the
	// stored JSON, or JSON null when it does not decode (the original keeps
	// the key with None).
	ReasoningDetails    json.RawMessage `json:"reasoning_details,omitempty"`
	CodexReasoningItems json.RawMessage `json:"codex_reasoning_items,omitempty"`
	CodexMessageItems   json.RawMessage `json:"codex_message_items,omitempty"`
}

// NewMessage returns m as a message to append or to pass to
// ReplaceMessages, so a replayed transcript can be written back unchanged.
func (m ConversationMessage) NewMessage() NewMessage {
	n := NewMessage{
		Role:                m.Role,
		Content:             m.Content,
		ToolCallID:          m.ToolCallID,
		ToolName:            m.ToolName,
		ToolCalls:           m.ToolCalls,
		ReasoningContent:    m.ReasoningContent,
		ReasoningDetails:    m.ReasoningDetails,
		CodexReasoningItems: m.CodexReasoningItems,
		CodexMessageItems:   m.CodexMessageItems,
	}
	if m.Reasoning != "" {
		n.Reasoning = &m.Reasoning
	}
	return n
}

// Conversation returns session id's messages shaped for replay to a model
// (see ConversationMessage), oldest first. With includeAncestors the
// messages of every ancestor session come first, in one global time order,
// and a user message that repeats an earlier user prompt with no assistant
// answer in between (a resumed session re-sending its prompt) is skipped.
// finish_reason and token_count are not part of a replay.
//
// It returns ErrClosed.
func (s *Store) Conversation(ctx context.Context, id string, includeAncestors bool) (_ []ConversationMessage, err error) {
	defer wrapOn(&err, "conversation of", id)
	p := db.MessageConversationParams{SessionID: id}
	if includeAncestors {
		p.IncludeAncestors = 1
	}
	return read(s, ctx, func(ctx context.Context, q db.DBTX) ([]ConversationMessage, error) {
		rows, err := s.q.MessageConversation(ctx, q, p)
		if err != nil {
			return nil, err
		}
		out := make([]ConversationMessage, 0, len(rows))
		for _, r := range rows {
			m := conversationMessage(r)
			if includeAncestors && isRepeatedPrompt(out, m) {
				continue
			}
			out = append(out, m)
		}
		return out, nil
	})
}

// conversationMessage applies the original's per-field replay rules.
func conversationMessage(r db.MessageConversationRow) ConversationMessage {
	m := ConversationMessage{
		Role:       r.Role,
		Content:    r.Content,
		ToolCallID: deref(r.ToolCallID),
		ToolName:   deref(r.ToolName),
		ToolCalls:  toolCallsJSON(r.ToolCalls),
	}
	if m.Content != nil && (r.Role == "user" || r.Role == "assistant") {
		m.Content = new(pytext.Strip(pytext.SanitizeContext(*m.Content)))
	}
	if r.Role == "assistant" {
		m.Reasoning = deref(r.Reasoning)
		m.ReasoningContent = r.ReasoningContent
		m.ReasoningDetails = decodedJSON(r.ReasoningDetails)
		m.CodexReasoningItems = decodedJSON(r.CodexReasoningItems)
		m.CodexMessageItems = decodedJSON(r.CodexMessageItems)
	}
	return m
}

// isRepeatedPrompt is the original's _is_duplicate_replayed_user_message: a
// non-empty user message whose content equals an earlier user message's,
// looking back only until an assistant message with content or tool calls.
func isRepeatedPrompt(prev []ConversationMessage, m ConversationMessage) bool {
	if m.Role != "user" || m.Content == nil || *m.Content == "" {
		return false
	}
	for i := len(prev) - 1; i >= 0; i-- {
		p := prev[i]
		switch {
		case p.Role == "user" && p.Content != nil && *p.Content == *m.Content:
			return true
		case p.Role == "assistant" && (deref(p.Content) != "" || pyjson.Truthy(p.ToolCalls)):
			return false
		}
	}
	return false
}
