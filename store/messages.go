package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/sqlnum"
	"github.com/hermesstate/hermesstate/internal/transfer"
)

// ErrInvalidMessage is returned when a NewMessage cannot be stored as given:
// both Content and ContentJSON set, or a NaN Timestamp (SQLite would store
// NULL in the NOT NULL column). Nothing is written.
var ErrInvalidMessage = errors.New("invalid message")

// NewMessage is a message to append. Empty strings and nil pointers are
// stored as NULL; the pointer fields exist where the original tells an
// empty value from an absent one.
type NewMessage struct {
	Role    string  // "user", "assistant", "tool", "system", …
	Content *string // nil: no content (an assistant turn with only tool calls)
	// ContentJSON is structured content instead of text: a multimodal list
	// of parts ([{"type": "text", …}, {"type": "image_url", …}]) or a dict.
	// It is stored as upstream stores such content, "\x00json:" followed
	// by the text Python's json.dumps writes (the NUL byte kept), and reads
	// back as Message.ContentJSON. A JSON string is stored as plain text
	// and null as NULL, as upstream stores a str and None. Set Content or
	// ContentJSON, not both.
	ContentJSON json.RawMessage

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

	// EffectDisposition is what a tool call's side effect came to, as the
	// agent records it (e.g. "unknown" for a detached worker).
	EffectDisposition string
	// PlatformMessageID is the messaging platform's own id of the message
	// (a Telegram update id, …), independent of the row id; replays return
	// it as ConversationMessage.MessageID.
	PlatformMessageID string
	// Observed marks group-chat context the agent saw without being
	// addressed; it is stored as 1 (else 0).
	Observed bool
	// Timestamp is when the message happened; nil stamps it with the
	// store's clock. ReplaceMessages, ReplaceActiveMessages and
	// ArchiveAndCompact stamp the messages without one with strictly
	// increasing times after the previous message's.
	Timestamp *Timestamp
}

// AppendMessage appends a message to session id, timestamped m.Timestamp
// or now, and in the same transaction adds one to the session's
// message_count and the number of calls in ToolCalls to its
// tool_call_count (a tool's reply adds nothing). The row is live (active
// 1, compacted 0) and observed is 1 or 0, all written explicitly. It
// returns the message's id (1, 2, 3, … per database).
//
// It returns ErrSessionNotFound, ErrCounterOverflow (a counter at the end
// of the int64 range), ErrInvalidMessage, ErrInvalidJSON (also for JSON
// nested deeper than Python reads), ErrInvalidText, ErrBusy or ErrClosed;
// on error nothing is written.
func (s *Store) AppendMessage(ctx context.Context, id string, m NewMessage) (_ int64, err error) {
	defer wrapOn(&err, "append message to", id)
	p, calls, err := insertParams(id, m)
	if err != nil {
		return 0, err
	}
	var msgID int64
	err = s.writeStaged(ctx, func(ctx context.Context, tx backend.Tx) error {
		if err := s.q.LockSession(ctx, tx, id); err != nil {
			return err
		}
		p.Timestamp = sqlnum.RealOf(s.now())
		if m.Timestamp != nil {
			p.Timestamp = sqlnum.RealOf(float64(*m.Timestamp))
		}
		n, err := s.q.SessionAddMessageCounts(ctx, tx, db.SessionAddMessageCountsParams{ToolCalls: int64(calls), ID: id})
		if err != nil {
			return err
		}
		if n == 0 {
			// No session, or a counter at the int64 limit (the UPDATE
			// refuses the sum): the counters' read tells which.
			if err := s.checkCounters(ctx, tx, id, messageAdds(calls)); err != nil {
				return err
			}
			return fmt.Errorf("counters of %q: not updated", id)
		}
		// Last: in a group the message is staged (groupcommit_stage.go).
		return s.stageMessage(ctx, tx, p, &msgID)
	})
	return msgID, err
}

// ReplaceMessages replaces session id's whole transcript with msgs in one
// transaction: every message of the session is deleted (live, rewound and
// compaction-archived ones alike), msgs are inserted in order as live rows
// and the counters are set to the number inserted and their tool calls. A
// message without a Timestamp is stamped now, or just after the previous
// message (upstream's _insert_message_rows: each next default time is the
// larger of the running time and the previous message's, plus 1µs). On
// any failure nothing changes: the old transcript and counters stay. An
// empty Role is stored as "unknown"; the reasoning fields are kept only on
// assistant messages, as in the original.
//
// It returns ErrSessionNotFound, ErrInvalidMessage, ErrInvalidJSON,
// ErrInvalidText, ErrBusy or ErrClosed.
func (s *Store) ReplaceMessages(ctx context.Context, id string, msgs []NewMessage) (err error) {
	defer wrapOn(&err, "replace messages of", id)
	return s.replace(ctx, id, msgs, false)
}

// ReplaceActiveMessages is ReplaceMessages for the live messages only
// (upstream's replace_messages with active_only): rewound and
// compaction-archived rows stay as they are, and the counters count the
// new live set. A transcript rewrite of a session whose history was
// compacted in place uses it, so the archived turns survive.
//
// It returns ErrSessionNotFound, ErrInvalidMessage, ErrInvalidJSON,
// ErrInvalidText, ErrBusy or ErrClosed.
func (s *Store) ReplaceActiveMessages(ctx context.Context, id string, msgs []NewMessage) (err error) {
	defer wrapOn(&err, "replace active messages of", id)
	return s.replace(ctx, id, msgs, true)
}

// replace is ReplaceMessages (activeOnly false) and ReplaceActiveMessages.
func (s *Store) replace(ctx context.Context, id string, msgs []NewMessage, activeOnly bool) error {
	return s.write(ctx, func(ctx context.Context, tx backend.Tx) error {
		if err := s.q.LockSession(ctx, tx, id); err != nil {
			return err
		}
		if err := s.mustExist(ctx, tx, id); err != nil {
			return err
		}
		del := s.q.MessageDeleteBySession
		if activeOnly {
			del = s.q.MessageDeleteActive
		}
		if _, err := del(ctx, tx, id); err != nil {
			return err
		}
		return s.insertCounted(ctx, tx, id, msgs)
	})
}

// insertCounted inserts msgs as session id's live rows (insertRows) and
// sets its message and tool-call counts to theirs: after the live rows
// were removed, the session holds msgs alone.
func (s *Store) insertCounted(ctx context.Context, tx backend.Tx, id string, msgs []NewMessage) error {
	calls, err := s.insertRows(ctx, tx, id, msgs)
	if err != nil {
		return err
	}
	_, err = s.q.SessionSetMessageCounts(ctx, tx, db.SessionSetMessageCountsParams{
		MessageCount: int64(len(msgs)), ToolCallCount: int64(calls), ID: id,
	})
	return err
}

// insertRows inserts msgs as live rows of session id in the write
// transaction tx, upstream's _insert_message_rows: default timestamps
// strictly increasing, the reasoning fields only on assistant messages,
// an empty role as "unknown". It returns the number of tool calls
// inserted; the counters are the caller's.
func (s *Store) insertRows(ctx context.Context, tx backend.Tx, id string, msgs []NewMessage) (int, error) {
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
			return 0, fmt.Errorf("message %d: %w", i+1, err) // counted from 1, as import counts
		}
		at := ts
		if m.Timestamp != nil {
			at = float64(*m.Timestamp)
		}
		p.Timestamp = sqlnum.RealOf(at)
		ts = math.Max(ts+1e-6, at+1e-6)
		if _, err := s.insertMessage(ctx, tx, p); err != nil {
			return 0, fmt.Errorf("message %d: %w", i+1, err)
		}
		calls += n
	}
	return calls, nil
}

// ClearMessages deletes every message of session id (live or not) and sets
// its counters to 0, in one transaction.
//
// It returns ErrSessionNotFound, ErrBusy or ErrClosed.
func (s *Store) ClearMessages(ctx context.Context, id string) (err error) {
	defer wrapOn(&err, "clear messages of", id)
	return s.update(ctx, id, func(ctx context.Context, tx backend.Tx) (int64, error) {
		if _, err := s.q.MessageDeleteBySession(ctx, tx, id); err != nil {
			return 0, err
		}
		return s.q.SessionSetMessageCounts(ctx, tx, db.SessionSetMessageCountsParams{ID: id})
	})
}

// MessageOptions select the messages GetMessagesWith returns; the zero
// value is GetMessages: every live message.
type MessageOptions struct {
	// IncludeInactive returns rewound and compaction-archived messages
	// too (active = 0), in their place.
	IncludeInactive bool
	// Limit returns at most this many messages; 0 or negative: all (Go's
	// zero value; upstream's limit=0 returns none, and None all).
	Limit int
	// Offset skips this many messages first (0 or negative: none).
	Offset int
}

// GetMessages returns session id's live messages (active = 1) in insertion
// order (by id, as upstream's get_messages: a clock stepping back never
// reorders them); none for an unknown session. Structured content reads as
// Message.ContentJSON; ToolCalls that do not decode read as []; the other
// JSON fields come back as stored.
//
// It returns ErrClosed.
func (s *Store) GetMessages(ctx context.Context, id string) (_ []Message, err error) {
	defer wrapOn(&err, "get messages of", id)
	return s.getMessages(ctx, id, MessageOptions{})
}

// GetMessagesWith is GetMessages with upstream's get_messages keywords: the
// inactive messages too, and a page of them (Offset messages skipped, at
// most Limit returned, counted over the messages selected).
//
// It returns ErrClosed.
func (s *Store) GetMessagesWith(ctx context.Context, id string, opts MessageOptions) (_ []Message, err error) {
	defer wrapOn(&err, "get messages of", id)
	return s.getMessages(ctx, id, opts)
}

// getMessages is GetMessagesWith.
func (s *Store) getMessages(ctx context.Context, id string, opts MessageOptions) ([]Message, error) {
	p := db.MessageListParams{SessionID: id, IncludeInactive: boolInt(opts.IncludeInactive), Limit: -1}
	if opts.Limit > 0 {
		p.Limit = int64(opts.Limit)
	}
	if opts.Offset > 0 {
		p.Offset = int64(opts.Offset)
	}
	return readOne(s, ctx, func(ctx context.Context, q backend.Tx) ([]Message, error) {
		return s.messagesOf(ctx, q, p, 0)
	})
}

// messagePageSize is how many messages EachMessage and the export read per
// statement.
const messagePageSize = 500

// EachMessage calls fn with session id's live messages in id order, as
// GetMessages returns them, holding at most one page of 500 in memory: a
// 300,000-message session streams in bounded memory. Pages are read by
// keyset on id, each in its own short read, so a long export never pins
// the WAL; a message appended meanwhile is seen (its id is larger). fn's
// error stops the walk and is returned.
//
// It returns fn's error (wrapped as every error is: errors.Is finds it) or
// ErrClosed.
func (s *Store) EachMessage(ctx context.Context, id string, fn func(Message) error) (err error) {
	defer wrapOn(&err, "read messages of", id)
	page := func(ctx context.Context, p db.MessagePageParams, first bool) ([]db.Message, error) {
		return readOne(s, ctx, func(ctx context.Context, q backend.Tx) ([]db.Message, error) {
			return s.messagePage(ctx, q, p, first)
		})
	}
	return eachMessagePage(ctx, id, page, func(r db.Message) error { return fn(messageFromDB(r)) })
}

// eachMessageIn is EachMessage's walk inside the read transaction q: every
// page from q's one snapshot (the export's).
func (s *Store) eachMessageIn(ctx context.Context, q backend.Tx, id string, fn func(db.Message) error) error {
	page := func(ctx context.Context, p db.MessagePageParams, first bool) ([]db.Message, error) {
		return s.messagePage(ctx, q, p, first)
	}
	return eachMessagePage(ctx, id, page, fn)
}

// messagePage reads one page: the first through the session's index
// (MessagePage), the next ones in id order from the last (MessagePageAfter),
// so that a short session costs one small index read and a long one a
// walk of the table, never a sort of its remaining rows per page.
func (s *Store) messagePage(ctx context.Context, q backend.Tx, p db.MessagePageParams, first bool) ([]db.Message, error) {
	if first {
		return wholeMessages(ctx, q, func(q backend.Tx) ([]db.Message, error) { return s.q.MessagePage(ctx, q, p) })
	}
	after := db.MessagePageAfterParams{AfterID: p.AfterID, SessionID: p.SessionID, Limit: p.Limit}
	return wholeMessages(ctx, q, func(q backend.Tx) ([]db.Message, error) { return s.q.MessagePageAfter(ctx, q, after) })
}

// eachMessagePage calls fn with session id's live rows in id order,
// reading them with page in keyset pages of messagePageSize: the one path
// that streams messages, whatever reads the pages. The generated queries
// select every column of the table, so a row always carries all of them.
// The first page starts before every id.
func eachMessagePage(ctx context.Context, id string, page func(context.Context, db.MessagePageParams, bool) ([]db.Message, error), fn func(db.Message) error) error {
	after := db.MessagePageParams{SessionID: id, AfterID: math.MinInt64, Limit: messagePageSize}
	for first := true; ; first = false {
		rows, err := page(ctx, after, first)
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
		after.AfterID = rows[len(rows)-1].ID
	}
}

// MessageCount counts message rows, live or not (upstream's
// message_count): of session id, or of every session when id is "".
//
// It returns ErrClosed.
func (s *Store) MessageCount(ctx context.Context, id string) (_ int64, err error) {
	defer wrap(&err, "count messages")
	return readOne(s, ctx, func(ctx context.Context, q backend.Tx) (int64, error) {
		if id == "" {
			return s.q.MessageCount(ctx, q)
		}
		return s.q.MessageCountBySession(ctx, q, id)
	})
}

// HasPlatformMessageID reports whether session id has a message, live or
// not, with the platform message id platformID (the gateway's guard
// against saving a retried inbound message twice).
//
// It returns ErrClosed.
func (s *Store) HasPlatformMessageID(ctx context.Context, id, platformID string) (_ bool, err error) {
	defer wrapOn(&err, "look up a platform message id in", id)
	return readOne(s, ctx, func(ctx context.Context, q backend.Tx) (bool, error) {
		return s.q.MessageHasPlatformID(ctx, q, db.MessageHasPlatformIDParams{SessionID: id, PlatformMessageID: &platformID})
	})
}

// insertParams validates m and encodes its JSON fields for session id. It
// returns the INSERT's parameters (without the timestamp) and the number of
// tool calls m adds to the session.
func insertParams(id string, m NewMessage) (db.MessageInsertParams, int, error) {
	var p db.MessageInsertParams
	if err := checkTexts("session id", id, "role", m.Role, "content", deref(m.Content), "tool name", m.ToolName,
		"tool call id", m.ToolCallID, "finish reason", m.FinishReason,
		"reasoning", deref(m.Reasoning), "reasoning content", deref(m.ReasoningContent),
		"effect disposition", m.EffectDisposition, "platform message id", m.PlatformMessageID); err != nil {
		return p, 0, err
	}
	switch {
	case m.Content != nil && m.ContentJSON != nil:
		return p, 0, fmt.Errorf("%w: both Content and ContentJSON are set", ErrInvalidMessage)
	case m.Timestamp != nil && math.IsNaN(float64(*m.Timestamp)):
		return p, 0, fmt.Errorf("%w: timestamp is NaN", ErrInvalidMessage)
	}
	var err error
	p = db.MessageInsertParams{
		SessionID:         id,
		Role:              m.Role,
		Content:           m.Content,
		ToolCallID:        nullable(m.ToolCallID),
		ToolName:          nullable(m.ToolName),
		EffectDisposition: nullable(m.EffectDisposition),
		TokenCount:        optionalIntColumn(m.TokenCount, nil, ""),
		FinishReason:      nullable(m.FinishReason),
		Reasoning:         m.Reasoning,
		ReasoningContent:  m.ReasoningContent,
		PlatformMessageID: nullable(m.PlatformMessageID),
		Observed:          sqlnum.IntOf(boolInt(m.Observed)),
	}
	if m.ContentJSON != nil {
		if p.Content, err = transfer.EncodeContent("content", m.ContentJSON); err != nil {
			return p, 0, err
		}
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
func (s *Store) insertMessage(ctx context.Context, tx backend.Tx, p db.MessageInsertParams) (int64, error) {
	id, err := s.q.MessageInsert(ctx, tx, p)
	if isForeignKey(err) {
		return 0, ErrSessionNotFound
	}
	return id, err
}

// messagesFromDB converts generated rows.
func messagesFromDB(rows []db.Message) []Message {
	out := make([]Message, len(rows))
	for i, r := range rows {
		out[i] = messageFromDB(r)
	}
	return out
}
