package store

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/sqlite"
	"github.com/hermesstate/hermesstate/internal/sqlnum"
)

// NewMessage is a message to append. Empty strings and nil pointers are
// stored as NULL; the pointer fields exist where the original tells an
// empty value from an absent one.
type NewMessage struct {
	Role    string  // "user", "assistant", "tool", "system", …
	Content *string // nil: no content (an assistant turn with only tool calls)

	ToolName   string
	ToolCallID string
	// ToolCalls is the JSON of the calls an assistant message makes. Each
	// element of an array counts as one call in the session's
	// tool_call_count; any other non-null value counts as one. An empty
	// array is stored as NULL.
	ToolCalls    json.RawMessage
	TokenCount   *int64
	FinishReason string

	Reasoning *string
	// ReasoningContent is kept even when "" (conversation replay returns
	// it), unlike Reasoning.
	ReasoningContent    *string
	ReasoningDetails    json.RawMessage
	CodexReasoningItems json.RawMessage
	CodexMessageItems   json.RawMessage
}

// AppendMessage appends a message to session id, timestamped now, and in
// the same transaction adds one to the session's message_count and the
// number of calls in ToolCalls to its tool_call_count (a tool's reply adds
// nothing). It returns the message's id (1, 2, 3, … per database).
//
// It returns ErrSessionNotFound, ErrCounterOverflow (a counter at the end
// of the int64 range), ErrInvalidJSON (also for JSON nested deeper than
// Python reads), ErrInvalidText, ErrBusy or ErrClosed; on error nothing is
// written.
func (s *Store) AppendMessage(ctx context.Context, id string, m NewMessage) (_ int64, err error) {
	defer wrapOn(&err, "append message to", id)
	p, calls, err := insertParams(id, m)
	if err != nil {
		return 0, err
	}
	var msgID int64
	err = s.write(ctx, func(ctx context.Context, tx db.DBTX) error {
		p.Timestamp = sqlnum.RealOf(s.now())
		if err := s.checkCounters(ctx, tx, id, messageAdds(calls)); err != nil {
			return err
		}
		var err error
		if msgID, err = s.insertMessage(ctx, tx, p); err != nil {
			return err
		}
		_, err = s.q.SessionAddMessageCounts(ctx, tx, db.SessionAddMessageCountsParams{ToolCalls: int64(calls), ID: id})
		return err
	})
	return msgID, err
}

// ReplaceMessages replaces session id's whole transcript with msgs in one
// transaction: the old messages are deleted, msgs are inserted in order
// (timestamps now, now+1µs, … as a running sum, exactly as the original) and the counters are set to match. On any
// failure nothing changes: the old transcript and counters stay. An empty
// Role is stored as "unknown"; the reasoning fields are kept only on
// assistant messages, as in the original.
//
// It returns ErrSessionNotFound, ErrInvalidJSON, ErrInvalidText, ErrBusy or
// ErrClosed.
func (s *Store) ReplaceMessages(ctx context.Context, id string, msgs []NewMessage) (err error) {
	defer wrapOn(&err, "replace messages of", id)
	return s.write(ctx, func(ctx context.Context, tx db.DBTX) error {
		if err := s.mustExist(ctx, tx, id); err != nil {
			return err
		}
		if _, err := s.q.MessageDeleteBySession(ctx, tx, id); err != nil {
			return err
		}
		// The original adds 1e-6 to a running timestamp per message; adding
		// i*1e-6 to the start rounds differently from the 4th message on.
		ts, calls := s.now(), 0
		for i, m := range msgs {
			if m.Role == "" {
				m.Role = "unknown"
			}
			if m.Role != "assistant" {
				m.Reasoning, m.ReasoningContent = nil, nil
				m.ReasoningDetails, m.CodexReasoningItems, m.CodexMessageItems = nil, nil, nil
			}
			// Encoding happens inside the transaction on purpose: a bad
			// message half way through fails after the delete and the first
			// inserts, and the rollback must restore everything.
			p, n, err := insertParams(id, m)
			if err != nil {
				return fmt.Errorf("message %d: %w", i+1, err) // counted from 1, as import counts
			}
			p.Timestamp = sqlnum.RealOf(ts)
			ts += 1e-6
			if _, err := s.insertMessage(ctx, tx, p); err != nil {
				return fmt.Errorf("message %d: %w", i+1, err) // counted from 1, as import counts
			}
			calls += n
		}
		_, err := s.q.SessionSetMessageCounts(ctx, tx, db.SessionSetMessageCountsParams{
			MessageCount: int64(len(msgs)), ToolCallCount: int64(calls), ID: id,
		})
		return err
	})
}

// ClearMessages deletes every message of session id and sets its counters
// to 0, in one transaction.
//
// It returns ErrSessionNotFound, ErrBusy or ErrClosed.
func (s *Store) ClearMessages(ctx context.Context, id string) (err error) {
	defer wrapOn(&err, "clear messages of", id)
	return s.update(ctx, id, func(ctx context.Context, tx db.DBTX) (int64, error) {
		if _, err := s.q.MessageDeleteBySession(ctx, tx, id); err != nil {
			return 0, err
		}
		return s.q.SessionSetMessageCounts(ctx, tx, db.SessionSetMessageCountsParams{ID: id})
	})
}

// GetMessages returns session id's messages oldest first (by timestamp,
// then id); none for an unknown session. ToolCalls that do not decode read
// as []; the other JSON fields come back as stored.
//
// It returns ErrClosed.
func (s *Store) GetMessages(ctx context.Context, id string) (_ []Message, err error) {
	defer wrapOn(&err, "get messages of", id)
	return read(s, ctx, func(ctx context.Context, q db.DBTX) ([]Message, error) {
		rows, err := s.q.MessageListBySession(ctx, q, id)
		if err != nil {
			return nil, err
		}
		out := make([]Message, len(rows))
		for i, r := range rows {
			out[i] = messageFromDB(r)
		}
		return out, nil
	})
}

// messagePageSize is how many messages EachMessage and the export read per
// statement.
const messagePageSize = 500

// EachMessage calls fn with session id's messages oldest first, as
// GetMessages orders them, holding at most one page of 500 in memory: a
// 300,000-message session streams in bounded memory. Pages are read by
// keyset on (timestamp, id), each in its own short read, so a long export
// never pins the WAL; a message appended meanwhile is seen when it sorts
// after the current page. fn's error stops the walk and is returned.
//
// It returns fn's error (wrapped as every error is: errors.Is finds it) or
// ErrClosed.
func (s *Store) EachMessage(ctx context.Context, id string, fn func(Message) error) (err error) {
	defer wrapOn(&err, "read messages of", id)
	page := func(ctx context.Context, p db.MessagePageParams) ([]db.Message, error) {
		return read(s, ctx, func(ctx context.Context, q db.DBTX) ([]db.Message, error) {
			return s.q.MessagePage(ctx, q, p)
		})
	}
	return eachMessagePage(ctx, id, page, func(r db.Message) error { return fn(messageFromDB(r)) })
}

// eachMessageIn is EachMessage's walk inside the read transaction q: every
// page from q's one snapshot (the export's).
func (s *Store) eachMessageIn(ctx context.Context, q db.DBTX, id string, fn func(db.Message) error) error {
	page := func(ctx context.Context, p db.MessagePageParams) ([]db.Message, error) {
		return s.q.MessagePage(ctx, q, p)
	}
	return eachMessagePage(ctx, id, page, fn)
}

// eachMessagePage calls fn with session id's rows in (timestamp, id) order,
// reading them with page in keyset pages of messagePageSize: the one path
// that streams messages, whatever reads the pages. The generated
// MessagePage selects every column of the table, so a row always carries
// all of them. Keyset order holds whatever a timestamp stores: the page
// boundary binds the last row's value as stored (sqlnum.Real), and SQLite
// compares it with the column as it sorts it (numbers, then text, then
// BLOBs); the first page starts after (-Inf, 0), before every row.
func eachMessagePage(ctx context.Context, id string, page func(context.Context, db.MessagePageParams) ([]db.Message, error), fn func(db.Message) error) error {
	after := db.MessagePageParams{SessionID: id, AfterTimestamp: sqlnum.RealOf(math.Inf(-1)), Limit: messagePageSize}
	for {
		rows, err := page(ctx, after)
		if err != nil {
			return err
		}
		for _, r := range rows {
			if err := fn(r); err != nil {
				return err
			}
		}
		if len(rows) < messagePageSize {
			return nil
		}
		// The timestamp as stored: one of text or a BLOB sorts after every
		// number, and its CAST (0) would start the next page over.
		last := rows[len(rows)-1]
		after.AfterTimestamp, after.AfterID = last.Timestamp, last.ID
	}
}

// MessageCount counts message rows: of session id, or of every session
// when id is "".
//
// It returns ErrClosed.
func (s *Store) MessageCount(ctx context.Context, id string) (_ int64, err error) {
	defer wrap(&err, "count messages")
	return read(s, ctx, func(ctx context.Context, q db.DBTX) (int64, error) {
		if id == "" {
			return s.q.MessageCount(ctx, q)
		}
		return s.q.MessageCountBySession(ctx, q, id)
	})
}

// insertParams validates m and encodes its JSON fields for session id. It
// returns the INSERT's parameters (without the timestamp) and the number of
// tool calls m adds to the session.
func insertParams(id string, m NewMessage) (db.MessageInsertParams, int, error) {
	var p db.MessageInsertParams
	if err := checkTexts("session id", id, "role", m.Role, "content", deref(m.Content), "tool name", m.ToolName,
		"tool call id", m.ToolCallID, "finish reason", m.FinishReason,
		"reasoning", deref(m.Reasoning), "reasoning content", deref(m.ReasoningContent)); err != nil {
		return p, 0, err
	}
	var err error
	p = db.MessageInsertParams{
		SessionID:        id,
		Role:             m.Role,
		Content:          m.Content,
		ToolCallID:       nullable(m.ToolCallID),
		ToolName:         nullable(m.ToolName),
		TokenCount:       optionalIntColumn(m.TokenCount, nil, ""),
		FinishReason:     nullable(m.FinishReason),
		Reasoning:        m.Reasoning,
		ReasoningContent: m.ReasoningContent,
	}
	calls := 0
	if p.ToolCalls, calls, err = encodeJSON("tool calls", m.ToolCalls); err != nil {
		return p, 0, err
	}
	for _, f := range []struct {
		name string
		raw  json.RawMessage
		col  **string
	}{
		{"reasoning details", m.ReasoningDetails, &p.ReasoningDetails},
		{"codex reasoning items", m.CodexReasoningItems, &p.CodexReasoningItems},
		{"codex message items", m.CodexMessageItems, &p.CodexMessageItems},
	} {
		if *f.col, _, err = encodeJSON(f.name, f.raw); err != nil {
			return p, 0, err
		}
	}
	return p, calls, nil
}

// insertMessage runs the INSERT, mapping the foreign-key failure of an
// unknown session to ErrSessionNotFound.
func (s *Store) insertMessage(ctx context.Context, tx db.DBTX, p db.MessageInsertParams) (int64, error) {
	id, err := s.q.MessageInsert(ctx, tx, p)
	if sqlite.IsForeignKey(err) {
		return 0, ErrSessionNotFound
	}
	return id, err
}
