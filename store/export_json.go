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
// ExportJSONL writes for the session, the original's export_all entry.
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
	return transfer.AppendEntry(nil, te)
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

// sessionColumns is s as its row's column values: sessionFromDB undone,
// each stored value in place of its field's.
func sessionColumns(s Session) transfer.Session {
	return transfer.Session{
		ID: s.ID, Source: s.Source, UserID: s.UserID, Model: s.Model,
		ModelConfig: textColumn(s.ModelConfig), SystemPrompt: s.SystemPrompt,
		ParentSessionID: s.ParentSessionID, StartedAt: realColumn(float64(s.StartedAt), s.Stored, "started_at"),
		EndedAt: optionalRealColumn((*float64)(s.EndedAt), s.Stored, "ended_at"), EndReason: s.EndReason,
		MessageCount:     intColumn(s.MessageCount, s.Stored, "message_count"),
		ToolCallCount:    intColumn(s.ToolCallCount, s.Stored, "tool_call_count"),
		InputTokens:      intColumn(s.InputTokens, s.Stored, "input_tokens"),
		OutputTokens:     intColumn(s.OutputTokens, s.Stored, "output_tokens"),
		CacheReadTokens:  intColumn(s.CacheReadTokens, s.Stored, "cache_read_tokens"),
		CacheWriteTokens: intColumn(s.CacheWriteTokens, s.Stored, "cache_write_tokens"),
		ReasoningTokens:  intColumn(s.ReasoningTokens, s.Stored, "reasoning_tokens"),
		BillingProvider:  s.BillingProvider, BillingBaseURL: s.BillingBaseURL, BillingMode: s.BillingMode,
		EstimatedCostUSD: optionalRealColumn(s.EstimatedCostUSD, s.Stored, "estimated_cost_usd"),
		ActualCostUSD:    optionalRealColumn(s.ActualCostUSD, s.Stored, "actual_cost_usd"),
		CostStatus:       s.CostStatus, CostSource: s.CostSource, PricingVersion: s.PricingVersion,
		Title: s.Title, APICallCount: intColumn(s.APICallCount, s.Stored, "api_call_count"),
	}
}

// messageColumns is m as its row's column values (see sessionColumns).
// ToolCalls is the JSON as the message holds it, which the export line
// writes as it writes a stored column's.
func messageColumns(m Message) transfer.Message {
	var calls *string
	if m.ToolCalls != nil {
		calls = new(string(m.ToolCalls))
	}
	return transfer.Message{
		ID: m.ID, SessionID: m.SessionID, Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID,
		ToolCalls: calls, ToolName: m.ToolName, Timestamp: realColumn(float64(m.Timestamp), m.Stored, "timestamp"),
		TokenCount: optionalIntColumn(m.TokenCount, m.Stored, "token_count"), FinishReason: m.FinishReason,
		Reasoning: m.Reasoning, ReasoningContent: m.ReasoningContent, ReasoningDetails: textColumn(m.ReasoningDetails),
		CodexReasoningItems: textColumn(m.CodexReasoningItems), CodexMessageItems: textColumn(m.CodexMessageItems),
	}
}

// textColumn is a JSONText as its column value: NULL for nil.
func textColumn(t JSONText) *string {
	if t == nil {
		return nil
	}
	return new(string(t))
}
