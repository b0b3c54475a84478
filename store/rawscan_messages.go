package store

import (
	"context"

	"github.com/hermesstate/hermesstate/db"
)

// eachConversationRow runs s.q.MessageConversation's statement (same text,
// same arguments, same rows) and calls fn with each row as it is read,
// through rawQuery when q allows it. fn must not keep the pointer.
func (s *Store) eachConversationRow(ctx context.Context, q db.DBTX, p db.MessageConversationParams, fn func(*db.MessageConversationRow) error) error {
	rc, ok := rawOf(ctx, q)
	if !ok {
		rows, err := s.q.MessageConversation(ctx, q, p)
		return eachRow(rows, err, fn)
	}
	query, args := statementOf(func(c db.DBTX) error {
		_, err := s.q.MessageConversation(ctx, c, p)
		return err
	})
	var r db.MessageConversationRow
	// The generated method's Scan order.
	dests := []any{&r.Role, &r.Content, &r.ToolCallID, &r.ToolCalls, &r.ToolName,
		&r.EffectDisposition, &r.FinishReason, &r.Reasoning, &r.ReasoningContent, &r.ReasoningDetails,
		&r.CodexReasoningItems, &r.CodexMessageItems, &r.PlatformMessageID, &r.Observed, &r.Timestamp}
	return rawQuery(ctx, rc, query, args, dests, func() error { return fn(&r) })
}

// eachMessageRow is eachConversationRow for s.q.MessageList.
func (s *Store) eachMessageRow(ctx context.Context, q db.DBTX, p db.MessageListParams, fn func(*db.Message) error) error {
	return eachWholeMessage(ctx, q, func(q db.DBTX) ([]db.Message, error) { return s.q.MessageList(ctx, q, p) }, fn)
}

// eachWholeMessage runs the statement gen runs, a generated :many query
// that selects whole messages rows (in messageDests' order), and calls fn
// with each row as it is read: through rawQuery when q allows it, else
// gen's own rows. fn must not keep the pointer.
func eachWholeMessage(ctx context.Context, q db.DBTX, gen func(db.DBTX) ([]db.Message, error), fn func(*db.Message) error) error {
	rc, ok := rawOf(ctx, q)
	if !ok {
		rows, err := gen(q)
		return eachRow(rows, err, fn)
	}
	query, args := statementOf(func(c db.DBTX) error {
		_, err := gen(c)
		return err
	})
	var m db.Message
	return rawQuery(ctx, rc, query, args, messageDests(&m), func() error { return fn(&m) })
}

// wholeMessages is eachWholeMessage collecting the rows.
func wholeMessages(ctx context.Context, q db.DBTX, gen func(db.DBTX) ([]db.Message, error)) ([]db.Message, error) {
	var out rows[db.Message]
	err := eachWholeMessage(ctx, q, gen, func(m *db.Message) error {
		out.add(*m)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return allRows(&out), nil
}

// messagesOf is GetMessages' and ExportSession's list: s.q.MessageList's
// rows, converted.
func (s *Store) messagesOf(ctx context.Context, q db.DBTX, p db.MessageListParams) ([]Message, error) {
	var out rows[Message]
	err := s.eachMessageRow(ctx, q, p, func(r *db.Message) error {
		out.add(messageFromDB(*r))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return allRows(&out), nil
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

// rows gathers a result of unknown length that may grow to thousands of
// large rows without append's repeated copying (append grows a large
// slice by a quarter at a time, copying and clearing every row again each
// time; measured, that was a sixth of a 20,000-message replay): rows go
// into chunks of doubling size (16 to 4,096 rows) that are never copied
// while the result grows, and allRows copies them once into a slice of the
// exact length.
type rows[T any] struct {
	full [][]T // filled chunks
	cur  []T   // the chunk being filled
	n    int   // rows in full
}

// add appends v.
func (r *rows[T]) add(v T) {
	if len(r.cur) == cap(r.cur) {
		if r.cur != nil {
			r.full = append(r.full, r.cur)
			r.n += len(r.cur)
		}
		r.cur = make([]T, 0, min(max(16, 2*cap(r.cur)), 4096))
	}
	r.cur = append(r.cur, v)
}

// backward yields the rows added so far, newest first.
func (r *rows[T]) backward(yield func(*T) bool) {
	for i := len(r.cur) - 1; i >= 0; i-- {
		if !yield(&r.cur[i]) {
			return
		}
	}
	for c := len(r.full) - 1; c >= 0; c-- {
		for i := len(r.full[c]) - 1; i >= 0; i-- {
			if !yield(&r.full[c][i]) {
				return
			}
		}
	}
}

// allRows returns every row r gathered, in order; never nil. (A function,
// not a method: the constant-SQL check in constsql_test.go recurses
// forever on a parameterless method of a generic type of this package.)
func allRows[T any](r *rows[T]) []T {
	if len(r.full) == 0 {
		if r.cur == nil {
			return []T{}
		}
		return r.cur
	}
	out := make([]T, 0, r.n+len(r.cur))
	for _, c := range r.full {
		out = append(out, c...)
	}
	return append(out, r.cur...)
}
