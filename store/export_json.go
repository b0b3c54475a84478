package store

import (
	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/transfer"
)

// An export line is the original's export_all entry, written and read by
// package transfer from the rows' column values. For a row whose numeric
// columns hold what their Go fields cannot carry (Session.Stored,
// Message.Stored) it carries what the original's json.dumps writes for the
// value as Python reads it: a float in Python's repr (1.5, 1e+20,
// 9.223372036854776e+18), text as a string. Two exceptions, where Python's
// export has no answer: a BLOB (json.dumps fails on bytes, and the whole
// export with it) is written as its Go value, and an infinite REAL (Python
// writes Infinity, which is not JSON) as 1e999 or -1e999, which Python's
// json.loads reads back as inf. Import reads all of it back.

// MarshalJSON returns the export line of e (without the newline): what
// ExportJSONL writes for the session, the original's export_all entry,
// its keys in the order of the columns of the file exported (a fresh
// file's for a decoded line).
func (e SessionExport) MarshalJSON() (_ []byte, err error) {
	defer wrap(&err, "marshal export line")
	te := transfer.Entry{
		Session:    sessionColumns(e.Session),
		LastActive: realColumn(float64(e.LastActive), e.Stored, "last_active"),
		Messages:   make([]transfer.Message, len(e.Messages)),
	}
	for i, m := range e.Messages {
		te.Messages[i] = messageColumns(m)
	}
	return transfer.AppendEntry(nil, te, e.order)
}

// UnmarshalJSON reads an export line: what MarshalJSON writes, or an entry
// of the original's export_all. A numeric key holding what its Go field
// cannot (1.5 or 1e+20 in a counter, text, 1e999) reads as the store reads
// such a column (CAST to the column's type) and is kept in Stored, so an
// import writes the value back as stored.
//
// It returns encoding/json's error for a line of another shape, with e
// holding what could be decoded.
func (e *SessionExport) UnmarshalJSON(b []byte) (err error) {
	defer wrap(&err, "unmarshal export line")
	te, err := transfer.Decode(b)
	*e = exportOf(db.Session(te.Session), te.LastActive)
	e.Messages = nil
	if te.Messages != nil {
		e.Messages = make([]Message, len(te.Messages))
	}
	for i, m := range te.Messages {
		e.Messages[i] = messageFromDB(db.Message(m))
	}
	return err
}

// MarshalJSON returns m as a message of an export line writes it:
// upstream's get_messages row, every column in a fresh file's order,
// structured content decoded (a list of parts, not a string), numeric
// values as stored (see SessionExport).
func (m Message) MarshalJSON() (_ []byte, err error) {
	defer wrap(&err, "marshal message")
	return transfer.AppendMessage(nil, messageColumns(m), transfer.Order{})
}

// UnmarshalJSON reads what MarshalJSON writes, or a row of upstream's
// get_messages: a content that is not a string is structured content;
// a column the object lacks reads as the schema's default.
//
// It returns encoding/json's error for an object of another shape, or
// ErrInvalidJSON or ErrInvalidText for a content that cannot be stored,
// with m holding what could be decoded.
func (m *Message) UnmarshalJSON(b []byte) (err error) {
	defer wrap(&err, "unmarshal message")
	r, err := transfer.DecodeMessage(b)
	*m = messageFromDB(db.Message(r))
	return err
}

// sessionColumns is s as its row's column values: sessionFromDB undone,
// each stored value in place of its field's.
func sessionColumns(s Session) transfer.Session {
	st := s.Stored
	return transfer.Session{
		ID: s.ID, Source: s.Source, UserID: s.UserID,
		SessionKey: s.SessionKey, ChatID: s.ChatID, ChatType: s.ChatType, ThreadID: s.ThreadID,
		DisplayName: s.DisplayName, OriginJSON: textColumn(s.OriginJSON),
		ExpiryFinalized: optionalIntColumn(s.ExpiryFinalized, st, "expiry_finalized"),
		Model:           s.Model, ModelConfig: textColumn(s.ModelConfig), SystemPrompt: s.SystemPrompt,
		ParentSessionID: s.ParentSessionID, StartedAt: realColumn(float64(s.StartedAt), st, "started_at"),
		EndedAt: optionalRealColumn((*float64)(s.EndedAt), st, "ended_at"), EndReason: s.EndReason,
		MessageCount:     intColumn(s.MessageCount, st, "message_count"),
		ToolCallCount:    intColumn(s.ToolCallCount, st, "tool_call_count"),
		InputTokens:      intColumn(s.InputTokens, st, "input_tokens"),
		OutputTokens:     intColumn(s.OutputTokens, st, "output_tokens"),
		CacheReadTokens:  intColumn(s.CacheReadTokens, st, "cache_read_tokens"),
		CacheWriteTokens: intColumn(s.CacheWriteTokens, st, "cache_write_tokens"),
		ReasoningTokens:  intColumn(s.ReasoningTokens, st, "reasoning_tokens"),
		Cwd:              s.Cwd, GitBranch: s.GitBranch, GitRepoRoot: s.GitRepoRoot,
		BillingProvider: s.BillingProvider, BillingBaseURL: s.BillingBaseURL, BillingMode: s.BillingMode,
		EstimatedCostUSD: optionalRealColumn(s.EstimatedCostUSD, st, "estimated_cost_usd"),
		ActualCostUSD:    optionalRealColumn(s.ActualCostUSD, st, "actual_cost_usd"),
		CostStatus:       s.CostStatus, CostSource: s.CostSource, PricingVersion: s.PricingVersion,
		Title: s.Title, APICallCount: intColumn(s.APICallCount, st, "api_call_count"),
		HandoffState: s.HandoffState, HandoffPlatform: s.HandoffPlatform, HandoffError: s.HandoffError,
		CompressionFailureCooldownUntil: optionalRealColumn((*float64)(s.CompressionFailureCooldownUntil), st, "compression_failure_cooldown_until"),
		CompressionFailureError:         s.CompressionFailureError,
		CompressionFallbackStreak:       intColumn(s.CompressionFallbackStreak, st, "compression_fallback_streak"),
		RewindCount:                     intColumn(s.RewindCount, st, "rewind_count"),
		Archived:                        intColumn(s.Archived, st, "archived"),
	}
}

// messageColumns is m as its row's column values (see sessionColumns).
// ToolCalls is the JSON as the message holds it, which the export line
// writes as it writes a stored column's; structured content is stored
// again as its column holds it.
func messageColumns(m Message) transfer.Message {
	var calls *string
	if m.ToolCalls != nil {
		calls = new(string(m.ToolCalls))
	}
	st := m.Stored
	return transfer.Message{
		ID: m.ID, SessionID: m.SessionID, Role: m.Role, Content: storedContent(m.Content, m.ContentJSON),
		ToolCallID: m.ToolCallID, ToolCalls: calls, ToolName: m.ToolName, EffectDisposition: m.EffectDisposition,
		Timestamp:  realColumn(float64(m.Timestamp), st, "timestamp"),
		TokenCount: optionalIntColumn(m.TokenCount, st, "token_count"), FinishReason: m.FinishReason,
		Reasoning: m.Reasoning, ReasoningContent: m.ReasoningContent, ReasoningDetails: textColumn(m.ReasoningDetails),
		CodexReasoningItems: textColumn(m.CodexReasoningItems), CodexMessageItems: textColumn(m.CodexMessageItems),
		PlatformMessageID: m.PlatformMessageID, Observed: optionalIntColumn(m.Observed, st, "observed"),
		Active: intColumn(m.Active, st, "active"), Compacted: intColumn(m.Compacted, st, "compacted"),
	}
}

// textColumn is a JSONText as its column value: NULL for nil.
func textColumn(t JSONText) *string {
	if t == nil {
		return nil
	}
	return new(string(t))
}
