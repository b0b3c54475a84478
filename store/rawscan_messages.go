package store

import (
	"context"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/backend"
)

// eachConversationRow runs s.q.MessageConversation's statement (same text,
// same arguments, same rows) and calls fn with each row as it is read,
// through rawQuery when q allows it. fn must not keep the pointer.
func (s *Store) eachConversationRow(ctx context.Context, q backend.Tx, p db.MessageConversationParams, fn func(*db.MessageConversationRow) error) error {
	rc, ok := rawOf(ctx, q)
	if !ok {
		rows, err := s.q.MessageConversation(ctx, q, p)
		return eachRow(rows, err, fn)
	}
	query, args := statementOf(func(c backend.Tx) error {
		_, err := s.q.MessageConversation(ctx, c, p)
		return err
	})
	var r db.MessageConversationRow
	// The generated method's Scan order.
	dests := []any{&r.Role, &r.Content, &r.ToolCallID, &r.ToolCalls, &r.ToolName,
		&r.EffectDisposition, &r.FinishReason, &r.Reasoning, &r.ReasoningContent, &r.ReasoningDetails,
		&r.CodexReasoningItems, &r.CodexMessageItems, &r.PlatformMessageID, &r.Observed, &r.Timestamp, &r.MessageCountHint}
	return rawQuery(ctx, rc, query, args, dests, func() error { return fn(&r) })
}

// eachMessageRow is eachConversationRow for s.q.MessageList.
func (s *Store) eachMessageRow(ctx context.Context, q backend.Tx, p db.MessageListParams, fn func(*db.Message) error) error {
	return eachWholeMessage(ctx, q, func(q backend.Tx) ([]db.Message, error) { return s.q.MessageList(ctx, q, p) }, fn)
}

// eachWholeMessage runs the statement gen runs, a generated :many query
// that selects whole messages rows (in messageDests' order), and calls fn
// with each row as it is read: through rawQuery when q allows it, else
// gen's own rows. fn must not keep the pointer.
func eachWholeMessage(ctx context.Context, q backend.Tx, gen func(backend.Tx) ([]db.Message, error), fn func(*db.Message) error) error {
	rc, ok := rawOf(ctx, q)
	if !ok {
		rows, err := gen(q)
		return eachRow(rows, err, fn)
	}
	query, args := statementOf(func(c backend.Tx) error {
		_, err := gen(c)
		return err
	})
	var m db.Message
	return rawQuery(ctx, rc, query, args, messageDests(&m), func() error { return fn(&m) })
}

// wholeMessages is eachWholeMessage collecting the rows.
func wholeMessages(ctx context.Context, q backend.Tx, gen func(backend.Tx) ([]db.Message, error)) ([]db.Message, error) {
	out := []db.Message{}
	err := eachWholeMessage(ctx, q, gen, func(m *db.Message) error {
		out = appendRow(out, *m)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// messagesOf is GetMessages' and ExportSession's list: s.q.MessageList's
// rows, converted, in a slice made for capacity rows at first (see
// rowsCapacity).
func (s *Store) messagesOf(ctx context.Context, q backend.Tx, p db.MessageListParams, capacity int) ([]Message, error) {
	out := make([]Message, 0, capacity)
	err := s.eachMessageRow(ctx, q, p, func(r *db.Message) error {
		out = appendRow(out, messageFromDB(*r))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// messageDests returns the pointers to m's fields in the column order of
// the generated queries that select a whole messages row (sqlc's
// sqlc.embed(messages) and SELECT * order, the table's).
func messageDests(m *db.Message) []any {
	return []any{&m.ID, &m.SessionID, &m.Role, &m.Content, &m.ToolCallID, &m.ToolCalls,
		&m.ToolName, &m.EffectDisposition, &m.Timestamp, &m.TokenCount, &m.FinishReason, &m.Reasoning,
		&m.ReasoningContent, &m.ReasoningDetails, &m.CodexReasoningItems, &m.CodexMessageItems,
		&m.PlatformMessageID, &m.Observed, &m.Active, &m.Compacted}
}

// eachRow calls fn with each of rows, or returns err.
func eachRow[R any](rows []R, err error, fn func(*R) error) error {
	if err != nil {
		return err
	}
	for i := range rows {
		if err := fn(&rows[i]); err != nil {
			return err
		}
	}
	return nil
}

// appendRow is append for result slices of unknown length that may grow
// to thousands of large rows: it doubles the capacity whenever it runs
// out, where append grows a large slice by only a quarter each time, so
// that a 20,000-message replay copies and clears its rows about once
// instead of about five times (measured: growth was a sixth of the
// replay's time).
func appendRow[T any](s []T, v T) []T {
	if len(s) == cap(s) {
		grown := make([]T, len(s), 2*cap(s)+8)
		copy(grown, s)
		s = grown
	}
	return append(s, v)
}

// maxRowsCapacity bounds the capacity a result slice is made with from a
// stored counter, so that a counter that bad data made huge costs no more
// than this many rows of memory up front (the slice grows past it as
// usual).
const maxRowsCapacity = 1 << 16

// rowsCapacity returns the capacity to make a result slice with when a
// stored counter (a session's message_count) says how many rows to
// expect: the counter, within 0 and maxRowsCapacity. Made at its size
// once, the slice is never copied and cleared again as it grows (a sixth
// of a long replay's time with appendRow alone). The counter is a hint
// only: the rows may be more or fewer.
func rowsCapacity(n int64) int {
	return int(max(0, min(n, maxRowsCapacity)))
}
