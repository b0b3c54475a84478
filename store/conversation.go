package store

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/pyjson"
	"github.com/hermesstate/hermesstate/internal/pytext"
	"github.com/hermesstate/hermesstate/internal/sqlnum"
	"github.com/hermesstate/hermesstate/internal/transfer"
)

// ConversationMessage is a message shaped for replay to a model, as the
// original's get_messages_as_conversation builds it. Its JSON form has the
// original's keys in the original's order: role and content always, the
// others only when set.
type ConversationMessage struct {
	Role string `json:"role"`
	// Content is nil when the message has none or holds structured
	// content. For user and assistant messages leaked memory-context
	// blocks are removed and the text trimmed; other roles keep their
	// content as stored.
	Content *string `json:"content"`
	// ContentJSON is the structured content (a multimodal list of parts),
	// decoded: the JSON form's "content" is this value when it is set.
	ContentJSON json.RawMessage `json:"-"`
	// Timestamp is the message's time (the JSON form leaves out 0).
	Timestamp         Timestamp       `json:"timestamp,omitzero"`
	ToolCallID        string          `json:"tool_call_id,omitempty"`
	ToolName          string          `json:"tool_name,omitempty"`
	EffectDisposition string          `json:"effect_disposition,omitempty"`
	ToolCalls         json.RawMessage `json:"tool_calls,omitempty"` // [] when the stored JSON does not decode
	// MessageID is the platform's own id of the message
	// (platform_message_id), under the key upstream replays it with.
	MessageID string `json:"message_id,omitempty"`
	// Observed is true for group-chat context the agent saw without being
	// addressed (the key is left out otherwise).
	Observed bool `json:"observed,omitempty"`

	// FinishReason and the reasoning fields are set on assistant messages
	// only. Reasoning is omitted when empty; ReasoningContent is kept even
	// when "".
	FinishReason     string  `json:"finish_reason,omitempty"`
	Reasoning        string  `json:"reasoning,omitempty"`
	ReasoningContent *string `json:"reasoning_content,omitempty"`
	// ReasoningDetails, CodexReasoningItems and CodexMessageItems hold the
	// stored JSON, or JSON null when it does not decode (the original keeps
	// the key with None).
	ReasoningDetails    json.RawMessage `json:"reasoning_details,omitempty"`
	CodexReasoningItems json.RawMessage `json:"codex_reasoning_items,omitempty"`
	CodexMessageItems   json.RawMessage `json:"codex_message_items,omitempty"`
}

// conversationJSON is ConversationMessage's JSON form: its fields, with
// the content a JSON value. Role and Content, declared first, take the
// place of the embedded message's own (encoding/json prefers the
// shallower field) and keep upstream's key order: role, content, then the
// message's other fields in their order.
type conversationJSON struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	conversationFields
}

// conversationFields is ConversationMessage without its MarshalJSON.
type conversationFields ConversationMessage

// MarshalJSON writes m with upstream's keys, in its order; "content" is the
// text, the structured content as a JSON value, or null.
func (m ConversationMessage) MarshalJSON() (_ []byte, err error) {
	defer wrap(&err, "marshal conversation message")
	c := conversationJSON{Role: m.Role, Content: m.ContentJSON, conversationFields: conversationFields(m)}
	if c.Content == nil {
		c.Content = json.RawMessage("null")
		if m.Content != nil {
			c.Content = transfer.AppendString(nil, *m.Content)
		}
	}
	// HTML characters are left as they are: the encoder that called
	// MarshalJSON escapes them or not, as it was told.
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(c); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// NewMessage returns m as a message to append or to pass to
// ReplaceMessages, so a replayed transcript can be written back unchanged:
// its timestamp, platform message id and observed flag included, as
// upstream's replace_messages keeps them from its conversation dicts.
func (m ConversationMessage) NewMessage() NewMessage {
	n := NewMessage{
		Role:                m.Role,
		Content:             m.Content,
		ContentJSON:         m.ContentJSON,
		ToolCallID:          m.ToolCallID,
		ToolName:            m.ToolName,
		ToolCalls:           m.ToolCalls,
		FinishReason:        m.FinishReason,
		ReasoningContent:    m.ReasoningContent,
		ReasoningDetails:    m.ReasoningDetails,
		CodexReasoningItems: m.CodexReasoningItems,
		CodexMessageItems:   m.CodexMessageItems,
		EffectDisposition:   m.EffectDisposition,
		PlatformMessageID:   m.MessageID,
		Observed:            m.Observed,
	}
	if m.Reasoning != "" {
		n.Reasoning = &m.Reasoning
	}
	if m.Timestamp != 0 {
		n.Timestamp = &m.Timestamp
	}
	return n
}

// ConversationOptions select what ConversationWith replays; the zero value
// is Conversation(ctx, id, false).
type ConversationOptions struct {
	// IncludeAncestors puts the messages of every ancestor session first,
	// in one global id order, and skips a user message that repeats an
	// earlier user prompt with no assistant answer in between (a resumed
	// session re-sending its prompt).
	IncludeAncestors bool
	// IncludeInactive replays rewound and compaction-archived messages
	// too.
	IncludeInactive bool
}

// Conversation returns session id's live messages shaped for replay to a
// model (see ConversationMessage), in insertion order (by id); with
// includeAncestors, see ConversationOptions.IncludeAncestors. Messages of
// a background skill or memory review that leaked into the session (a
// user or system message starting "Review the conversation above and
// update the skill library" or "… and consider saving to memory") are
// left out with the assistant reply right after each, as upstream strips
// them. token_count is not part of a replay.
//
// It returns ErrClosed.
func (s *Store) Conversation(ctx context.Context, id string, includeAncestors bool) (_ []ConversationMessage, err error) {
	defer wrapOn(&err, "conversation of", id)
	return s.conversation(ctx, id, ConversationOptions{IncludeAncestors: includeAncestors})
}

// ConversationWith is Conversation with upstream's keywords
// (get_messages_as_conversation's include_ancestors and include_inactive).
//
// It returns ErrClosed.
func (s *Store) ConversationWith(ctx context.Context, id string, opts ConversationOptions) (_ []ConversationMessage, err error) {
	defer wrapOn(&err, "conversation of", id)
	return s.conversation(ctx, id, opts)
}

// conversation is ConversationWith.
func (s *Store) conversation(ctx context.Context, id string, opts ConversationOptions) ([]ConversationMessage, error) {
	p := db.MessageConversationParams{
		SessionID: id, IncludeAncestors: boolInt(opts.IncludeAncestors), IncludeInactive: boolInt(opts.IncludeInactive),
	}
	return readOne(s, ctx, func(ctx context.Context, q backend.Tx) ([]ConversationMessage, error) {
		var out []ConversationMessage
		err := s.eachConversationRow(ctx, q, p, func(r *db.MessageConversationRow) error {
			if out == nil {
				// Every row carries the session's message count: the
				// slice is made once at about its final size.
				out = make([]ConversationMessage, 0, rowsCapacity(r.MessageCountHint))
			}
			m := conversationMessage(*r)
			if !opts.IncludeAncestors || !isRepeatedPrompt(out, m) {
				out = appendRow(out, m)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = []ConversationMessage{}
		}
		return stripReviewHarness(out), nil
	})
}

// conversationMessage applies the original's per-field replay rules.
func conversationMessage(r db.MessageConversationRow) ConversationMessage {
	m := ConversationMessage{
		Role:              r.Role,
		Timestamp:         Timestamp(r.Timestamp.Float64),
		ToolCallID:        deref(r.ToolCallID),
		ToolName:          deref(r.ToolName),
		EffectDisposition: deref(r.EffectDisposition),
		ToolCalls:         toolCallsJSON(r.ToolCalls),
		MessageID:         deref(r.PlatformMessageID),
		Observed:          truthyInt(r.Observed),
	}
	m.Content, m.ContentJSON = decodeContent(r.Content)
	if m.Content != nil && (r.Role == "user" || r.Role == "assistant") {
		m.Content = new(pytext.Strip(pytext.SanitizeContext(*m.Content)))
	}
	if r.Role == "assistant" {
		m.FinishReason = deref(r.FinishReason)
		m.Reasoning = deref(r.Reasoning)
		m.ReasoningContent = r.ReasoningContent
		m.ReasoningDetails = decodedJSON(r.ReasoningDetails)
		m.CodexReasoningItems = decodedJSON(r.CodexReasoningItems)
		m.CodexMessageItems = decodedJSON(r.CodexMessageItems)
	}
	return m
}

// truthyInt is Python's truth of an INTEGER column's value: NULL, 0, 0.0
// and empty text or BLOBs are false; anything else, the text "0"
// included, is true.
func truthyInt(n sqlnum.Int) bool {
	switch v := n.Stored.(type) {
	case string:
		return v != ""
	case float64:
		return v != 0
	case []byte:
		return len(v) > 0
	}
	return n.Valid && n.Int64 != 0
}

// isRepeatedPrompt is the original's _is_duplicate_replayed_user_message: a
// non-empty user message whose content equals an earlier user message's,
// looking back only until an assistant message with content or tool calls.
// Structured content is never a repeated prompt (upstream compares only
// text).
func isRepeatedPrompt(prev []ConversationMessage, m ConversationMessage) bool {
	if m.Role != "user" || m.Content == nil || *m.Content == "" {
		return false
	}
	for i := len(prev) - 1; i >= 0; i-- {
		p := prev[i]
		switch {
		case p.Role == "user" && p.Content != nil && *p.Content == *m.Content:
			return true
		case p.Role == "assistant" && (deref(p.Content) != "" || p.ContentJSON != nil && pyjson.Truthy(p.ContentJSON) || pyjson.Truthy(p.ToolCalls)):
			return false
		}
	}
	return false
}

// reviewHarnessPrefixes open the prompts of upstream's background skill and
// memory reviews (agent/background_review.py), matched case-sensitively.
var reviewHarnessPrefixes = []string{
	"Review the conversation above and update the skill library",
	"Review the conversation above and consider saving to memory",
}

// isReviewHarness is upstream's _is_background_review_harness_message: a
// user or system message whose text, leading white space aside, starts
// with a review prompt.
func isReviewHarness(m ConversationMessage) bool {
	if (m.Role != "user" && m.Role != "system") || m.Content == nil {
		return false
	}
	head := strings.TrimLeftFunc(*m.Content, pytext.IsSpace)
	for _, p := range reviewHarnessPrefixes {
		if strings.HasPrefix(head, p) {
			return true
		}
	}
	return false
}

// stripReviewHarness is upstream's _strip_background_review_harness: it
// drops every review prompt and the assistant message right after it (a
// reply in the curator's role), keeping everything else in order.
func stripReviewHarness(msgs []ConversationMessage) []ConversationMessage {
	// Nearly every replay has no review prompt: then nothing is rewritten
	// (moving every row onto itself cost a twentieth of a long replay).
	first := slices.IndexFunc(msgs, func(m ConversationMessage) bool { return isReviewHarness(m) })
	if first < 0 {
		return msgs
	}
	out := msgs[:first]
	skipAssistant := false
	for _, m := range msgs[first:] {
		if isReviewHarness(m) {
			skipAssistant = true
			continue
		}
		if skipAssistant {
			skipAssistant = false
			if m.Role == "assistant" {
				continue
			}
		}
		out = append(out, m)
	}
	return out
}
